import fc from 'fast-check';
import MarkdownIt from 'markdown-it';
import { MainContentReader } from './main-content-reader';
import { MarkdownConverter } from './markdown-converter';
import { MARKDOWN_RULES } from './markdown-rules';
import { ParsedPage } from './parsed-page';

const PAGE_URL = 'https://shop.example.com/catalog/page.html';

describe(MarkdownConverter.name, () => {
  let reader: MainContentReader;
  let converter: MarkdownConverter;
  beforeAll(async () => {
    reader = await MainContentReader.load();
    converter = new MarkdownConverter(reader);
  });
  const convert = (html: string, options = {}, url = PAGE_URL) => converter.convert(new ParsedPage(html, url), options).markdown;
  const commonMark = new MarkdownIt();
  /** What a reader sees when the markdown is rendered (tags removed, entities decoded, spaces collapsed). */
  const rendered = (markdown: string) =>
    commonMark
      .render(markdown)
      .replace(/<[^>]+>/g, ' ')
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&quot;/g, '"')
      .replace(/&amp;/g, '&')
      .replace(/\s+/g, ' ')
      .trim();

  describe('structure', () => {
    it('renders GFM tables with their header row', () => {
      const md = convert(
        '<table><thead><tr><th>Name</th><th>Price</th></tr></thead><tbody><tr><td>Tea</td><td>3</td></tr><tr><td>Coffee</td><td>4</td></tr></tbody></table>',
      );
      expect(md).toBe('| Name | Price |\n| --- | --- |\n| Tea | 3 |\n| Coffee | 4 |');
    });

    it('renders fenced code blocks with their language', () => {
      const md = convert('<pre><code class="language-ts">const a = 1;\nconst b = a * 2;</code></pre>');
      expect(md).toBe('```ts\nconst a = 1;\nconst b = a * 2;\n```');
    });

    it('renders nested lists with indentation', () => {
      const md = convert('<ul><li>One<ul><li>One.a</li><li>One.b<ol><li>deep</li></ol></li></ul></li><li>Two</li></ul>');
      expect(md).toBe('- One\n  - One.a\n  - One.b\n    1. deep\n- Two');
    });

    it('makes links and images absolute, honouring <base href>', () => {
      expect(convert('<a href="../about">About</a> <img src="/logo.png" alt="Logo">')).toBe(
        '[About](https://shop.example.com/about) ![Logo](https://shop.example.com/logo.png)',
      );
      expect(convert('<html><head><base href="https://cdn.example.net/assets/"></head><body><a href="x.html">X</a></body></html>')).toBe(
        '[X](https://cdn.example.net/assets/x.html)',
      );
    });

    it('drops scripts, styles and the head, keeps GFM strikethrough', () => {
      expect(
        convert(
          '<html><head><title>T</title><style>p{}</style></head><body><script>alert(1)</script><h1>Title</h1><p>Text <del>old</del></p></body></html>',
        ),
      ).toBe('# Title\n\nText ~~old~~');
    });

    it('keeps task list checkboxes', () => {
      expect(convert('<ul><li><input type="checkbox" checked> done</li><li><input type="checkbox"> todo</li></ul>')).toBe(
        '- [x] done\n- [ ] todo',
      );
    });
  });

  describe('the defects found on real pages', () => {
    it('an empty <table> never fails the conversion (turndown-plugin-gfm read rows[0] of it)', () => {
      expect(convert('<p>Before</p><table></table><table><tbody></tbody></table><table><tr></tr></table><p>After</p>')).toBe(
        'Before\n\nAfter',
      );
    });

    it('a table without a header row is a GFM table (its first row heads it), and script or style inside it never leaks', () => {
      const md = convert(
        '<table><tr><td>Tea</td><td>3</td><script>var leaked = 1;</script></tr><tr><td>Coffee<style>.x{color:red}</style></td><td>4</td></tr></table>',
      );
      expect(md).toBe('| Tea | 3 |\n| --- | --- |\n| Coffee | 4 |');
    });

    it('lays out colspan and rowspan as a browser does, and flattens blocks inside cells to one line', () => {
      const md = convert(
        '<table><tr><th colspan="2">Drink</th><th>Price</th></tr><tr><td rowspan="2">Hot</td><td>Tea</td><td><p>3</p><p>per cup</p></td></tr><tr><td>Coffee | strong</td><td><ul><li>4</li><li>5</li></ul></td></tr></table>',
      );
      expect(md).toBe('| Drink |  | Price |\n| --- | --- | --- |\n| Hot | Tea | 3 per cup |\n|  | Coffee \\| strong | - 4 - 5 |');
    });

    it('a layout table (tables in tables, one column, headings in cells) comes out as blocks, its data tables as GFM', () => {
      const md = convert(
        '<table><tr><td><h2>Article</h2><p>Body text.</p><table><tr><th>a</th><th>b</th></tr><tr><td>1</td><td>2</td></tr></table></td><td>Sidebar</td></tr></table>',
      );
      expect(md).toBe('## Article\n\nBody text.\n\n| a | b |\n| --- | --- |\n| 1 | 2 |\n\nSidebar');
    });

    it('every <pre> is a fenced code block, with or without <code>, its <br>s as newlines and its spans as text', () => {
      expect(convert('<pre>\nline one\n  <b>line</b> two<br>line three\n</pre>')).toBe('```\nline one\n  line two\nline three\n```');
      expect(convert('<pre data-lang="python"><span>x</span> = <span>"```"</span></pre>')).toBe('````python\nx = "```"\n````');
    });

    it('text that only looks like a tag stays words (escaped), in headings and across text nodes', () => {
      const md = convert(
        '<h1>Use &lt;img&gt; for images</h1><p>wreck&lt;<a href="javascript:void(0)">x</a>/font&gt; and &amp;amp; stays</p>',
      );
      expect(rendered(md)).toBe('Use <img> for images wreck<x/font> and &amp; stays');
    });

    it("a script holding a commented-out </script> loses neither the article nor its boundaries (one parse, the browser's)", () => {
      const html =
        '<body><script>\n<!--\ndocument.write("<script src=\'a.js\'></script>");\n-->\n</script><article><h1>Headline</h1><p>The whole article survives.</p></article></body>';
      expect(convert(html)).toBe('# Headline\n\nThe whole article survives.');
      expect(convert('<SCRIPT>var a = "x";</script ><p>After an upper-case script.</p>')).toBe('After an upper-case script.');
    });
  });

  describe('links and images', () => {
    it('keeps a card link around blocks as a heading linked, not a link broken over lines', () => {
      expect(convert('<a href="/post"><h3>Post title</h3><p>Summary.</p></a>')).toBe(
        '### [Post title](https://shop.example.com/post)\n\nSummary.',
      );
    });

    it('javascript: links are their text; links with no text are dropped', () => {
      expect(convert('<p><a href="javascript:void(0)">Open</a> <a href="/x"> </a>end</p>')).toBe('Open end');
    });

    it('never inlines a data: image (its alt text stands in) and finds lazy images in data-src/srcset', () => {
      const md = convert(
        '<img src="data:image/png;base64,AAAA" alt="Chart"><img src="data:image/gif;base64,R0lG" data-src="/real.jpg" alt="Real"><img srcset="/small.jpg 1x, /big.jpg 2x" alt="Set">',
      );
      expect(md).not.toContain('data:');
      expect(md).toBe('Chart ![Real](https://shop.example.com/real.jpg)![Set](https://shop.example.com/small.jpg)');
    });

    it('include_images=false leaves images out', () => {
      expect(convert('<p>Text <img src="/a.png" alt="A"> more</p>', { includeImages: false })).toBe('Text more');
    });

    it('drops hidden elements (hidden, aria-hidden, display:none)', () => {
      expect(convert('<p>Shown</p><p hidden>H1</p><div aria-hidden="true">H2</div><div style="color:red; display: none">H3</div>')).toBe(
        'Shown',
      );
    });
  });

  describe('robustness', () => {
    it('converts a page nested 20 000 elements deep (the deepest levels as text)', () => {
      const depth = 20_000;
      const html = `<html><head><title>Deep</title></head><body>${'<div>'.repeat(depth)}<p>deep <b>text</b></p>${'</div>'.repeat(depth)}</body></html>`;
      expect(convert(html)).toBe('deep text');
      expect(convert(html, { onlyMainContent: true })).toMatch(/deep (?:\*\*)?text/);
    });

    it('an element a rule cannot convert is kept as its text; the rest of the page converts', () => {
      const broken = {
        filter: (node: HTMLElement) => node.nodeName === 'BLOCKQUOTE',
        replacement: () => {
          throw new Error('rule failed');
        },
      };
      const failing = new MarkdownConverter(reader, { ...MARKDOWN_RULES, broken });
      const md = failing.convert(
        new ParsedPage('<h2>Kept</h2><blockquote><p>Quoted *text*</p></blockquote><p>After</p>', PAGE_URL),
      ).markdown;
      expect(md).toBe('## Kept\n\nQuoted \\*text\\*\n\nAfter');
    });

    it('a page that cannot be converted at all comes back as its visible text, with the reason', () => {
      const failing = new MarkdownConverter(reader);
      failing['turndown'].turndown = () => {
        throw new RangeError('Maximum call stack size exceeded');
      };
      const result = failing.convert(new ParsedPage('<h1>Title</h1><script>x()</script><p>Body   text</p>', PAGE_URL));
      expect(result).toEqual({ markdown: 'TitleBody text', degraded: 'Maximum call stack size exceeded', mainContentFallback: false });
    });

    it('property: any text renders as itself (escaping covers everything that reads as markup)', () => {
      const piece = fc.constantFrom(
        '<',
        '>',
        '&',
        '&amp;',
        '&lt;',
        '&#60;',
        '*',
        '**',
        '_',
        '__',
        '`',
        '```',
        '[',
        ']',
        '(',
        ')',
        '!',
        '#',
        '# ',
        '- ',
        '+ ',
        '1. ',
        '2) ',
        '> ',
        '=',
        '~~',
        '|',
        '\\',
        'a',
        'word',
        ' ',
        'b_c',
        'img',
        '/div',
        '!--',
        'http://x.y/',
      );
      fc.assert(
        fc.property(fc.array(piece, { minLength: 1, maxLength: 12 }), (pieces) => {
          const text = pieces.join('').replace(/\s+/g, ' ').trim();
          fc.pre(text.length > 0);
          const html = `<p>${text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')}</p>`;
          expect(rendered(convert(html))).toBe(text);
        }),
        { numRuns: 400 },
      );
    });

    it('property: any grid of cells with any spans makes a well-formed GFM table (every line the same width)', () => {
      const cell = fc.record({
        text: fc.constantFrom('a', 'b|c', '', 'x y', '<p>p1</p><p>p2</p>'),
        colspan: fc.integer({ min: 1, max: 4 }),
        rowspan: fc.integer({ min: 1, max: 3 }),
        th: fc.boolean(),
      });
      fc.assert(
        fc.property(fc.array(fc.array(cell, { minLength: 2, maxLength: 4 }), { minLength: 2, maxLength: 5 }), (rows) => {
          const html = `<table>${rows.map((r) => `<tr>${r.map((c) => `<${c.th ? 'th' : 'td'} colspan="${c.colspan}" rowspan="${c.rowspan}">${c.text}</${c.th ? 'th' : 'td'}>`).join('')}</tr>`).join('')}</table>`;
          const md = convert(html);
          if (!md) return;
          const lines = md.split('\n');
          const widths = lines.map((line) => line.replace(/\\\|/g, '').split('|').length);
          expect(new Set(widths).size).toBe(1);
          expect(lines[1]).toMatch(/^\|( --- \|)+$/);
        }),
        { numRuns: 300 },
      );
    });
  });

  describe('main content', () => {
    const page = `<html><head><title>Tea guide</title></head><body>
      <header><nav><a href="/">Home</a> <a href="/shop">Shop</a></nav></header>
      <div id="cookie-banner">We use cookies. <button>Accept</button></div>
      <main><article><h2>Brewing green tea</h2>${'<p>Green tea wants water below boiling, around eighty degrees, and a short steep of two minutes so that it stays sweet rather than bitter. </p>'.repeat(6)}</article></main>
      <aside class="sidebar"><h3>Related</h3><ul><li><a href="/a">Black tea</a></li><li><a href="/b">Oolong</a></li></ul></aside>
      <footer>© 2026 Tea Shop · <a href="/imprint">Imprint</a></footer></body></html>`;

    it('keeps the article headed by its title and drops navigation, banners, sidebars and footers', () => {
      const md = convert(page, { onlyMainContent: true });
      expect(md.startsWith('# Tea guide\n\n## Brewing green tea\n\nGreen tea wants water')).toBe(true);
      for (const dropped of ['Home', 'cookies', 'Related', 'Oolong', 'Imprint']) expect(md).not.toContain(dropped);
    });

    it('converts the whole page, and says so, when there is no article', () => {
      const result = converter.convert(new ParsedPage('<ul><li><a href="/a">A</a></li></ul>', PAGE_URL), { onlyMainContent: true });
      expect(result).toMatchObject({
        markdown: '- [A](https://shop.example.com/a)',
        degraded: null,
        mainContentFallback: true,
        mainContent: { whole_page: true, removed: {} },
      });
    });
  });
});
