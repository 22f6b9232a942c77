import { SelectorExtractor } from '../extraction/selector-extractor';
import { MainContentReader } from './main-content-reader';
import { MarkdownConverter } from './markdown-converter';
import { PageFormatter } from './page-formatter';
import { ParsedPage } from './parsed-page';

const URL = 'https://forum.example.com/t/kettles/42';
const POSTS = [
  'First post: the steel kettle whistles when the water boils.',
  'Reply: mine took four minutes on gas, six on the induction plate.',
]
  .map((text, i) => `<div class="post" id="post_${i + 1}"><p>${text}</p></div>`)
  .join('');

/**
 * A page read by a client whose scripts did not run (simple mode) is read as the server sent it to
 * such a client: its noscript content, its streamed parts where the scripts would place them, and
 * a page hidden until a script shows it — and a rendered DOM (browser mode) is left as it is.
 */
describe('pages whose scripts did not run', () => {
  let converter: MarkdownConverter;
  beforeAll(async () => {
    converter = new MarkdownConverter(await MainContentReader.load());
  });
  const markdownOf = (html: string, scriptsRan: boolean, onlyMainContent = false) =>
    converter.convert(new ParsedPage(html, URL, { scriptsRan }), { onlyMainContent }).markdown;

  it('reads the posts a forum serves in noscript (Discourse, Flarum), and drops its JavaScript prompt', () => {
    const html = `<html><head><title>Kettles</title></head><body><section id="main"></section><noscript data-path="/t/kettles/42"><h1>Kettles</h1>${POSTS.repeat(3)}</noscript><noscript>Please enable JavaScript to use this forum.</noscript><script src="/app.js"></script></body></html>`;
    const simple = markdownOf(html, false);
    expect(simple).toContain('# Kettles');
    expect(simple).toContain('the steel kettle whistles');
    expect(simple).not.toMatch(/enable JavaScript/i);
    expect(markdownOf(html, false, true)).toContain('mine took four minutes');
    // A browser with scripts shows what they render, not the noscript blocks.
    expect(markdownOf(html, true)).not.toContain('the steel kettle');
  });

  it('leaves noscript alone on a page whose markup carries its content (a tracking pixel, a prompt)', () => {
    const html = `<html><body><article><h1>Tea</h1>${'<p>Green tea wants water below the boil, around eighty degrees.</p>'.repeat(6)}</article><noscript><img src="/pixel.gif" alt="pixel"></noscript><noscript>This site works best with JavaScript enabled, so enable JavaScript for comments.</noscript></body></html>`;
    const markdown = markdownOf(html, false);
    expect(markdown).toContain('Green tea wants water');
    expect(markdown).not.toContain('pixel');
    expect(markdown).not.toMatch(/enable JavaScript/i);
  });

  it("places React's streamed parts (Next.js app router) where their placeholders stand", () => {
    const html = `<html><body><header><p>Site header</p></header><main><!--$?--><template id="B:0"></template><p>Loading…</p><!--/$--></main><footer><p>Site footer</p></footer><div hidden id="S:0"><h1>Guide</h1>${POSTS}</div><script>$RC("B:0","S:0")</script></body></html>`;
    const markdown = markdownOf(html, false);
    expect(markdown).toContain('# Guide');
    const [header, guide, footer] = ['Site header', 'the steel kettle', 'Site footer'].map((t) => markdown.indexOf(t));
    expect(header).toBeLessThan(guide!);
    expect(guide).toBeLessThan(footer!);
  });

  it('shows a page hidden whole until its script reveals it, and still drops what a page hides beside its content', () => {
    const html = `<html><body><div id="__next"><div style="visibility:hidden;min-height:100vh"><h1>Machine learning</h1>${'<p>A model learns a function from examples and is judged on examples it never saw.</p>'.repeat(5)}<div style="display:none"><p>Cookie settings dialog</p></div></div></div></body></html>`;
    const markdown = markdownOf(html, false);
    expect(markdown).toContain('# Machine learning');
    expect(markdown).not.toContain('Cookie settings');
    expect(markdownOf(html, true)).toBe('');
  });

  // A shop's page (WCXB dev 0631): the product in a display:none block a script shows, a mega menu
  // in its header holding more text than the product. The header is not what a script reveals, so
  // the product's share is of the text outside the header, navigation and footer.
  const MEGA_MENU = `<header><nav>${Array.from({ length: 300 }, (_, i) => `<a href="/c/${i}">Category number ${i} of the shop</a>`).join('')}</nav></header>`;
  const PRODUCT = `<article><h1>Toasted almond thins</h1>${'<p>Our family created these crunchy almond crisps for special occasions and get-togethers.</p>'.repeat(6)}</article>`;

  it("shows a product hidden until its script runs, though the header's mega menu holds more text", () => {
    const html = `<html><body>${MEGA_MENU}<div class="defer-block" style="display: none">${PRODUCT}</div><footer>© The shop</footer></body></html>`;
    for (const onlyMainContent of [false, true])
      expect(markdownOf(html, false, onlyMainContent)).toContain('Our family created these crunchy almond crisps');
    // A hidden menu of the header itself is never what is revealed.
    const hiddenMenu = `<html><body><header><div style="display:none">${MEGA_MENU}</div></header><p>Short visible page.</p></body></html>`;
    expect(markdownOf(hiddenMenu, false)).not.toContain('Category number');
  });

  it('keeps hidden a copy of what the page already shows (a raw-markdown twin)', () => {
    const article = '<p>Choosing the right CRM is a balancing act between the features a funnel needs and what they cost.</p>'.repeat(4);
    const html = `<html><body>${MEGA_MENU}<main><pre class="rawMarkdown" hidden>${'Choosing the right CRM is a balancing act between the features a funnel needs and what they cost. '.repeat(5)}</pre>${article}</main></body></html>`;
    const markdown = markdownOf(html, false);
    expect(markdown.match(/Choosing the right CRM/g)).toHaveLength(4);
  });

  it('finds the product on a generated 5 MB page, its text past 4.9 MB, in both modes', () => {
    // What sits before the product: the head's inline scripts and styles, then the header, as large shops' pages are.
    const script = `<script>window.__state = "${'x'.repeat(1_000_000)}";</script>`;
    const head = `<head><title>Toasted almond thins</title>${script.repeat(4)}<style>${'.a{color:red}'.repeat(80_000)}</style></head>`;
    const html = `<html>${head}<body>${MEGA_MENU}<div class="defer-block" style="display: none">${PRODUCT}</div></body></html>`;
    expect(html.length).toBeGreaterThan(5_000_000);
    expect(html.indexOf('Our family created')).toBeGreaterThan(4_900_000);
    for (const onlyMainContent of [false, true])
      expect(markdownOf(html, false, onlyMainContent)).toContain('Our family created these crunchy almond crisps');
  });
});

/**
 * A page that keeps its text only in framework boot data: simple mode's markdown reads that text
 * (the verdict is unchanged), with a note that says where it came from.
 */
describe('boot-data text in simple-mode markdown', () => {
  let formatter: PageFormatter;
  beforeAll(async () => {
    formatter = new PageFormatter(new MarkdownConverter(await MainContentReader.load()), new SelectorExtractor());
  });
  const format = (html: string, scriptsRan = false, onlyMainContent = false) =>
    formatter.format(
      { format: 'markdown', only_main_content: onlyMainContent, extract: null, include_images: true, include_metadata: false },
      html,
      URL,
      { scriptsRan },
    );
  const POST_TEXTS = [
    'The steel kettle whistles when the water boils, which is the whole point of it.',
    'Mine took four minutes on gas and six on the induction plate, with the lid on.',
    'Descale it every month if your water is hard, or the element will furr up quickly.',
  ];

  it('reads a Next.js page whose posts are only in __NEXT_DATA__, as text paragraphs, and says so', () => {
    const data = { props: { pageProps: { posts: POST_TEXTS.map((body, id) => ({ id, body, className: 'post-body flex-1' })) } } };
    const html = `<html><head><title>Kettles</title></head><body><div id="__next"></div><script id="__NEXT_DATA__" type="application/json">${JSON.stringify(data)}</script></body></html>`;
    const { markdown, notes } = format(html);
    for (const text of POST_TEXTS) expect(markdown).toContain(text);
    expect(markdown).not.toContain('pageProps');
    expect(markdown).not.toContain('post-body flex-1');
    expect(notes.join(' ')).toMatch(/boot data for its scripts \(__NEXT_DATA__\).*retry with browser=true/);
    expect(format(html, false, true).markdown).toContain(POST_TEXTS[2]);
    // With scripts run, the DOM is what counts: nothing is added from the data.
    expect(format(html, true).notes).toEqual([]);
  });

  it("reads Discourse's double-encoded data-preloaded without its JSON keys, and escapes markdown in data text", () => {
    const topic = JSON.stringify({ post_stream: { posts: POST_TEXTS.map((t, i) => ({ id: i, cooked: `<p>${t}</p>` })) } });
    const preload = JSON.stringify({ topic_42: topic, site: JSON.stringify({ title: '# Not a heading, just a title with *stars* here' }) });
    const attribute = preload.replace(/&/g, '&amp;').replace(/"/g, '&quot;');
    const html = `<html><body><section id="main"></section><div id="data-preloaded" data-preloaded="${attribute}"></div><script src="/app.js"></script></body></html>`;
    const { markdown } = format(html);
    for (const text of POST_TEXTS) expect(markdown).toContain(text);
    expect(markdown).not.toMatch(/post_stream|cooked|<p>/);
    expect(markdown).toContain('\\# Not a heading, just a title with \\*stars\\* here');
  });

  it('leaves a page alone whose markup has its text, or whose data has no prose', () => {
    const article = `<article><h1>Tea</h1>${'<p>Green tea wants water below the boil, around eighty degrees.</p>'.repeat(6)}</article>`;
    const withData = `<html><body>${article}<script id="__NEXT_DATA__" type="application/json">${JSON.stringify({ posts: POST_TEXTS })}</script></body></html>`;
    expect(format(withData)).toMatchObject({ notes: [] });
    expect(format(withData).markdown).not.toContain(POST_TEXTS[0]);
    const noProse = `<html><body><div id="root"></div><script id="__NEXT_DATA__" type="application/json">${JSON.stringify({ ids: [1, 2, 3], cls: 'flex items-center px-4 py-2 text-sm' })}</script></body></html>`;
    expect(format(noProse)).toMatchObject({ notes: [] });
  });
});
