import { elementBlocks, embeddedProseOf, gateEvidenceOf, locateContent, proseIn, withNoscriptAsMarkup } from './content-location';

describe('locateContent', () => {
  it('counts noscript content, not noscript prompts, and calls noscript the content only where it outweighs the markup', () => {
    const posts = '<div class="post"><p>The kettle whistles when the water boils, every time.</p></div>'.repeat(8);
    const forum = locateContent(
      `<body><section id="main"></section><noscript>${posts}</noscript><noscript>Please enable JavaScript.</noscript></body>`,
    );
    expect(forum).toMatchObject({ markupText: 0, noscriptIsContent: true, javascriptPrompt: true });
    expect(forum.readableText).toBe(forum.noscriptText);
    const article = locateContent(`<body><article>${posts.repeat(2)}</article><noscript>${posts}</noscript></body>`);
    expect(article.noscriptIsContent).toBe(false);
    expect(article.readableText).toBe(article.markupText);
  });

  it('measures the prose in framework boot data, and not its class lists, URLs or identifiers', () => {
    const prose = 'A hand-tufted rug in wool and cotton, soft underfoot and easy to clean.';
    const next = `<div id="__next"></div><script id="__NEXT_DATA__" type="application/json">${JSON.stringify({
      props: {
        text: prose,
        className: 'flex items-center justify-between px-4 py-2',
        href: 'https://example.com/a b c d',
        id: 'product_123',
      },
    })}</script>`;
    expect(locateContent(next).embeddedData).toEqual([{ source: '__NEXT_DATA__', text: prose.length }]);
    const discourse = `<div id="data-preloaded" data-preloaded="${JSON.stringify({ topic: JSON.stringify({ cooked: `<p>${prose}</p>` }) }).replace(/"/g, '&quot;')}"></div>`;
    // Encoded twice (JSON in a JSON string): the inner literal is measured whole, its keys with it.
    const [preloaded] = locateContent(discourse).embeddedData;
    expect(preloaded).toMatchObject({ source: 'data-preloaded' });
    expect(preloaded!.text).toBeGreaterThanOrEqual(prose.length);
    expect(preloaded!.text).toBeLessThan(prose.length + 20);
    expect(proseIn('"flex items-center gap-2 px-4" "https://cdn.example.com/a.js" "x"')).toBe(0);
  });

  it('does work linear in the page, however many unclosed tags, attributes or literals a hostile page holds', () => {
    // Quadratic scanning of any of these would not finish within the test's time limit.
    const n = 400_000;
    for (const hostile of [
      '<noscript>'.repeat(n),
      '<script>'.repeat(n),
      '<script '.repeat(n),
      'data-preloaded="'.repeat(n),
      '<div id="root"'.repeat(n),
      '<link rel="preload" '.repeat(n),
      `<script id="__NEXT_DATA__">${'"\\"'.repeat(n)}</script>`,
      `<script id="__NEXT_DATA__">"${'{\\"k\\": \\"'.repeat(n)}"</script>`,
      `<script id="__NEXT_DATA__">${'"some words of prose in a row", '.repeat(n / 4)}</script>`,
    ]) {
      const prose = embeddedProseOf(hostile, 1_000);
      expect(prose.paragraphs.join('').length).toBeLessThan(1_100);
      const location = locateContent(hostile, { thorough: true });
      expect(location.readableText).toBeGreaterThanOrEqual(0);
      expect(withNoscriptAsMarkup(hostile).length).toBeLessThanOrEqual(hostile.length);
      expect([...elementBlocks(hostile, 'script')].length).toBeLessThanOrEqual(1);
    }
  });
});

describe('gateEvidenceOf', () => {
  const page = (readableText: number, text = '', title = '', statusCode = 200) => ({
    statusCode,
    title,
    readableText,
    smallText: () => text,
  });
  it('names the evidence that a page is the challenge, and finds none on a page with its content', () => {
    expect(gateEvidenceOf(page(5000, '', '', 403))).toBe('status:403');
    expect(gateEvidenceOf(page(5000, '', 'just a moment...'))).toBe('title:just a moment...');
    expect(gateEvidenceOf(page(40))).toBe('thin:40');
    expect(gateEvidenceOf(page(600, 'please complete the security check to continue'))).toBe('phrase:security check');
    expect(gateEvidenceOf(page(600, 'a comment box and a newsletter form'))).toBeNull();
    expect(gateEvidenceOf(page(5000, 'verify you are human'))).toBeNull();
  });
});
