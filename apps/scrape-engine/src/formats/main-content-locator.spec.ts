import fc from 'fast-check';
import { BOILERPLATE_WORDS, CHROME_BLOCKS } from '../../../../test/support/page-chrome';
import { MainContentReader } from './main-content-reader';
import { locateMainContent } from './main-content-locator';
import { SelectorExtractor } from '../extraction/selector-extractor';
import { keptTooLittle, MarkdownConverter } from './markdown-converter';
import { MARKDOWN_RULES } from './markdown-rules';
import { PageFormatter } from './page-formatter';
import { ParsedPage } from './parsed-page';

const URL = 'https://example.com/posts/green-tea';
const PARAGRAPH = 'Green tea wants water below boiling, around eighty degrees, and a short steep of two minutes so it stays sweet. ';

/**
 * Main content by evidence (issue 37): boilerplate out, content in, whatever the page is; a
 * thread's posts and a grid's items kept; the page's kind read from what it says of itself; and
 * work bounded on any page.
 */
describe('locateMainContent', () => {
  let converter: MarkdownConverter;
  beforeAll(async () => {
    // The rules alone: the model that reads over them has its own spec (main-content-reading.spec.ts).
    converter = new MarkdownConverter(await MainContentReader.load(), MARKDOWN_RULES, null);
  });
  const main = (html: string, url = URL) => converter.convert(new ParsedPage(html, url), { onlyMainContent: true });

  // Blocks that are not content, each with a sentence that must never reach the main content.
  const boilerplate = fc.constantFrom(...CHROME_BLOCKS);

  it('property: keeps every paragraph of the article and none of the boilerplate around it, wherever it sits', () => {
    fc.assert(
      fc.property(
        fc.array(boilerplate, { maxLength: 6 }),
        fc.array(boilerplate, { maxLength: 6 }),
        fc.integer({ min: 3, max: 12 }),
        fc.constantFrom('main', 'article', 'div class="post-body"', 'section'),
        fc.integer({ min: 0, max: 3 }),
        (before, after, paragraphs, wrapper, depth) => {
          const tag = wrapper.split(' ')[0]!;
          const body = Array.from({ length: paragraphs }, (_, i) => `<p>${i + 1}. ${PARAGRAPH}</p>`).join('');
          const article = `${'<div>'.repeat(depth)}<${wrapper}><h1>Brewing green tea</h1>${body}</${tag}>${'</div>'.repeat(depth)}`;
          const html = `<html><head><title>Tea</title></head><body>${before.join('')}${article}${after.join('')}</body></html>`;
          const { markdown, mainContentFallback } = main(html);
          expect(mainContentFallback).toBe(before.length + after.length === 0);
          for (let i = 1; i <= paragraphs; i += 1) expect(markdown).toContain(`${i}\\. Green tea wants water`);
          if (!mainContentFallback) expect(markdown).not.toMatch(BOILERPLATE_WORDS);
        },
      ),
      { numRuns: 150 },
    );
  });

  it("keeps a thread's posts (comments on a forum) and drops an article's comments", () => {
    const posts = Array.from(
      { length: 6 },
      (_, i) =>
        `<div class="comment"><span class="author">user${i}</span><p>Reply ${i}: my kettle took ${i + 3} minutes on gas, lid on.</p></div>`,
    ).join('');
    const thread = `<html><head><meta name="generator" content="Discourse 3.2"></head><body><nav><a href="/">Home</a> <a href="/latest">Latest</a> <a href="/top">Top</a> <a href="/c">Categories</a></nav><div id="topic"><h1>Kettles</h1>${posts}</div></body></html>`;
    const located = locateMainContent(new ParsedPage(thread, 'https://forum.example.com/t/kettles/42'))!;
    expect(located.kind).toBe('forum');
    expect(located.kindEvidence).toEqual(expect.arrayContaining([expect.stringMatching(/^generator:Discourse/)]));
    const md = main(thread, 'https://forum.example.com/t/kettles/42').markdown;
    for (let i = 0; i < 6; i += 1) expect(md).toContain(`Reply ${i}:`);
    expect(md).not.toContain('Categories');

    const article = `<html><head><meta property="og:type" content="article"></head><body><article><h1>Tea</h1>${`<p>${PARAGRAPH}</p>`.repeat(6)}</article><section id="comments">${posts}</section></body></html>`;
    const articleMd = main(article).markdown;
    expect(articleMd).toContain('Green tea wants water');
    expect(articleMd).not.toContain('Reply 0:');
  });

  it("keeps a grid's items, links and all, on a collection page", () => {
    const items = Array.from(
      { length: 12 },
      (_, i) =>
        `<li class="product-card"><a href="/p/${i}">Hand-thrown stoneware teapot number ${i}, glazed in blue</a><span class="price">$${40 + i}</span></li>`,
    ).join('');
    const html = `<html><head><script type="application/ld+json">{"@type":"CollectionPage"}</script></head><body><nav><a href="/">Home</a> <a href="/a">Teas</a> <a href="/b">Pots</a> <a href="/c">Cups</a></nav><main><h1>Teapots</h1><ul class="grid">${items}</ul></main><footer><a href="/imprint">Imprint</a></footer></body></html>`;
    expect(locateMainContent(new ParsedPage(html, 'https://shop.example.com/c/teapots'))!.kind).toBe('collection');
    const md = main(html).markdown;
    for (let i = 0; i < 12; i += 1)
      expect(md).toContain(`[Hand-thrown stoneware teapot number ${i}, glazed in blue](https://example.com/p/${i})`);
    expect(md).toContain('$51');
    expect(md).not.toContain('Imprint');
  });

  it("reads the page's kind from its structured data, OpenGraph type, software and address", () => {
    const kindOf = (head: string, url = URL) =>
      locateMainContent(
        new ParsedPage(`<html><head>${head}</head><body><p>${PARAGRAPH}</p><nav><a href="/">Home</a></nav></body></html>`, url),
      )!.kind;
    expect(kindOf('<script type="application/ld+json">{"@context":"https://schema.org","@type":"Product","name":"Pot"}</script>')).toBe(
      'product',
    );
    expect(kindOf(`<script type="application/ld+json">[${'{"@type":"Product"},'.repeat(3)}{"@type":"Organization"}]</script>`)).toBe(
      'collection',
    );
    expect(kindOf('<script type="application/ld+json">{"@graph":[{"@type":["WebPage","QAPage"]}]}</script>')).toBe('forum');
    expect(kindOf('<meta property="og:type" content="product">')).toBe('product');
    expect(kindOf('', 'https://forums.example.com/threads/kettles.123/')).toBe('forum');
    expect(kindOf('', 'https://docs.example.com/api/kettles')).toBe('documentation');
    expect(kindOf('<script type="application/ld+json">{"@type": broken</script>')).toBe('article');
  });

  it('reads again the one block that took the content, keeping the rest of the evidence', () => {
    // The page's content sits in a <nav> (always navigation, whatever its size); its menu is still a menu.
    const html = `<html><body><header class="site-header"><a href="/">Tea Times</a> <a href="/login">Sign in</a></header><nav class="page">${`<p>${PARAGRAPH}</p>`.repeat(8)}<ul class="menu"><li><a href="/x">Black</a></li><li><a href="/y">Oolong</a></li><li><a href="/z">White</a></li><li><a href="/w">Herbal</a></li></ul></nav><footer><p>Copyright Tea Times.</p></footer></body></html>`;
    const located = locateMainContent(new ParsedPage(html, URL))!;
    expect(located.wholePage).toBe(false);
    expect(located.removed).toMatchObject({ header: expect.any(Number), footer: expect.any(Number) });
    const md = main(html).markdown;
    expect(md).toContain('Green tea wants water');
    expect(md).not.toMatch(/Sign in|Oolong|Copyright/);
  });

  it('reads a page whole, and says so, when evidence would have taken everything or found nothing', () => {
    // Everything inside a <nav>: removing it would leave nothing.
    const allNav = `<html><body><nav>${`<p>${PARAGRAPH}</p>`.repeat(3)}</nav></body></html>`;
    expect(main(allNav)).toMatchObject({ mainContentFallback: true, markdown: expect.stringContaining('Green tea wants water') });
    expect(main('<ul><li><a href="/a">A</a></li></ul>')).toMatchObject({ mainContentFallback: true });
  });

  it('explains itself in metadata, and sends a fragment back to the whole page with a note (the too-little rule)', () => {
    const formatter = new PageFormatter(converter, new SelectorExtractor());
    const request = { format: 'markdown' as const, only_main_content: true, include_metadata: true, include_images: true, extract: null };
    const article = `<html><head><script type="application/ld+json">{"@type":"BlogPosting"}</script></head><body><nav><a href="/">Home</a> <a href="/a">Teas</a> <a href="/b">Pots</a> <a href="/c">Cups</a></nav><article>${`<p>${PARAGRAPH}</p>`.repeat(5)}</article><footer><p>Copyright Tea Times.</p></footer></body></html>`;
    const told = formatter.format(request, article, URL, { scriptsRan: true });
    expect(told.metadata).toMatchObject({
      page_type: 'article',
      main_content: {
        evidence: ['json-ld:BlogPosting'],
        whole_page: false,
        removed: { navigation: expect.any(Number), footer: expect.any(Number) },
      },
    });
    expect(told.metadata!.main_content!.confidence).toBeGreaterThan(0.5);
    expect(told.notes).toEqual([]);

    // Sidebars around a block that says almost nothing: under 100 of at least 1,000 characters kept.
    const fragment = `<html><body>${`<aside><p>${PARAGRAPH}${PARAGRAPH}</p></aside>`.repeat(4)}<div><p>${'Short text. '.repeat(8)}</p></div><main><p>Twenty-four characters.</p></main></body></html>`;
    const page = new ParsedPage(fragment, URL);
    const located = locateMainContent(page)!;
    expect(keptTooLittle(located)).toBe(true);
    const whole = formatter.format(request, fragment, URL, { scriptsRan: true });
    expect(whole.markdown).toContain('Green tea wants water');
    expect(whole.notes).toEqual([expect.stringMatching(/^only_main_content kept too little \(\d+ of \d+ characters\).*whole page\.$/)]);
    expect(whole.metadata!.main_content).toMatchObject({ whole_page: true, removed: {} });
    expect(keptTooLittle({ text: 99, pageText: 1_000 })).toBe(true);
    expect(keptTooLittle({ text: 100, pageText: 1_000 })).toBe(false);
    expect(keptTooLittle({ text: 10, pageText: 999 })).toBe(false);
  });

  it("keeps an article's paragraphs around a gallery that holds most of its characters", () => {
    const slides = Array.from(
      { length: 60 },
      (_, i) => `<li><h2>${i + 1}/60 Slide</h2><p>Slide ${i + 1} tells of a tea estate, its altitude, its pickers and its season.</p></li>`,
    ).join('');
    const story = Array.from({ length: 5 }, (_, i) => `<p>Story ${i + 1}: ${PARAGRAPH}${PARAGRAPH}</p>`).join('');
    const html = `<html><head><meta property="og:type" content="article"></head><body><nav><a href="/">Home</a> <a href="/a">Teas</a> <a href="/b">Pots</a> <a href="/c">Cups</a></nav><article><h1>Estates</h1><div class="body">${story}<div class="gallery"><ul>${slides}</ul></div></div></article></body></html>`;
    const md = main(html).markdown;
    for (let i = 1; i <= 5; i += 1) expect(md).toContain(`Story ${i}:`);
    expect(md).toContain('Slide 60 tells');
  });

  it("sets a product's reviews apart and never mistakes them for a thread or an index; a modal is never the content", () => {
    const reviews = Array.from(
      { length: 8 },
      (_, i) => `<div class="review"><span>Buyer ${i}</span><p>Review ${i}: ${PARAGRAPH}${PARAGRAPH}</p></div>`,
    ).join('');
    const ld = `<script type="application/ld+json">[{"@type":"Product","name":"Kyusu"},${'{"@type":"Review"},'.repeat(4)}{"@type":"AggregateRating"}]</script>`;
    const html = `<html><head>${ld}</head><body><main><h1>Kyusu teapot</h1><p class="price">$48</p>${`<p>${PARAGRAPH}${PARAGRAPH}</p>`.repeat(4)}<table><tr><th>Volume</th><td>350 ml</td></tr></table><section id="product-reviews">${reviews}</section></main><div id="modal-terms" class="fixed">${`<p>Terms: ${PARAGRAPH}${PARAGRAPH}</p>`.repeat(12)}</div></body></html>`;
    const located = locateMainContent(new ParsedPage(html, 'https://shop.example.com/p/kyusu'))!;
    expect(located.kind).toBe('product');
    expect(located.kindEvidence).not.toEqual(expect.arrayContaining([expect.stringMatching(/Review|comments:/)]));
    const md = main(html, 'https://shop.example.com/p/kyusu').markdown;
    expect(md).toContain('Kyusu teapot');
    expect(md).toContain('$48');
    expect(md).toContain('350 ml');
    expect(md).not.toContain('Review 0:');
    expect(md).not.toContain('Terms:');
  });

  it("drops a thread's lists of links to other threads, and keeps the posts", () => {
    const posts = Array.from({ length: 8 }, (_, i) => `<div class="post"><p>Answer ${i}: ${PARAGRAPH}${PARAGRAPH}</p></div>`).join('');
    const hot = Array.from(
      { length: 12 },
      (_, i) => `<li><a href="/q/${i}">Why does my kettle number ${i} whistle at night?</a></li>`,
    ).join('');
    const html = `<html><head><script type="application/ld+json">{"@type":"QAPage"}</script></head><body><div id="content"><div id="question"><h1>Kettles</h1>${posts}</div><div id="hot-network-questions"><h4>Hot questions</h4><ul>${hot}</ul></div></div></body></html>`;
    const md = main(html, 'https://qa.example.com/questions/1/kettles').markdown;
    for (let i = 0; i < 8; i += 1) expect(md).toContain(`Answer ${i}:`);
    expect(md).not.toContain('whistle at night');
  });

  it("reads a page builder's blocks by what they hold, not by the builder's word for every block", () => {
    const quotes = Array.from(
      { length: 6 },
      (_, i) => `<div class="elementor-widget-wrap elementor-element-populated"><p>Quote ${i}: ${PARAGRAPH}</p></div>`,
    ).join('');
    const html = `<html><body><header class="elementor-location-header"><a href="/">Home</a> <a href="/a">Lessons</a> <a href="/b">Teachers</a> <a href="/c">Prices</a></header><main><h1>What pupils say</h1>${`<p>Intro: ${PARAGRAPH}</p>`.repeat(3)}${quotes}</main><div class="widget widget_recent_entries"><a href="/p/1">Recent post one</a></div><footer class="elementor-location-footer"><p>Copyright Tea School.</p></footer></body></html>`;
    const md = main(html).markdown;
    for (let i = 0; i < 6; i += 1) expect(md).toContain(`Quote ${i}:`);
    expect(md).not.toMatch(/Lessons|Recent post one|Copyright/);
  });

  it('does bounded work on hostile pages: 20,000 levels deep, 70,000 elements, thousands of boilerplate words', () => {
    const deep = `<html><body>${'<div class="nav">'.repeat(20_000)}<p>deep text</p>${'</div>'.repeat(20_000)}</body></html>`;
    expect(main(deep).markdown).toContain('deep');
    const wide = `<html><body><main>${'<p>x</p>'.repeat(70_000)}</main></body></html>`;
    // Past the element bound the page is read whole, as before.
    expect(locateMainContent(new ParsedPage(wide, URL))).toBeNull();
    expect(main(wide).mainContentFallback).toBe(true);
    // Deep, then wide: tens of thousands of boilerplate blocks 25,000 levels down (a walk up from each would be quadratic).
    const deepThenWide = `<html><body>${'<div>'.repeat(25_000)}${'<nav>menu</nav>'.repeat(30_000)}<p>${PARAGRAPH.repeat(200)}</p>${'</div>'.repeat(25_000)}</body></html>`;
    expect(locateMainContent(new ParsedPage(deepThenWide, URL))!.removed.navigation).toBe(30_000 * 4);
    const words = `<html><body><div class="${'menu share related comments '.repeat(5_000)}"><p>${PARAGRAPH.repeat(50)}</p></div></body></html>`;
    expect(main(words).markdown).toContain('Green tea wants water');
  });
});
