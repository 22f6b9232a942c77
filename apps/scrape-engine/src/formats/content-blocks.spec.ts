import fc from 'fast-check';
import { type HTMLElement, NodeType } from 'node-html-parser';
import { BLOCK_FEATURES, contentBlocksOf, nodesLeftOut } from './content-blocks';
import { conversionTreeOf } from './conversion-tree';
import { locateMainContent } from './main-content-locator';
import { ParsedPage } from './parsed-page';

const blocksOf = (html: string) => {
  const page = new ParsedPage(html, 'https://example.com/a', { scriptsRan: false });
  return { page, blocks: contentBlocksOf(page.body, locateMainContent(page), false, page.url, null).blocks };
};

describe('content blocks', () => {
  it('cuts a page into what a reader sees as blocks, in document order: paragraphs, headings, items, cells, loose text', () => {
    const { blocks } = blocksOf(
      `<body><nav><a href="/">Home</a> <a href="/b">Blog</a></nav>
       <div>Loose text before <p>First <b>bold</b> paragraph.</p> loose text after</div>
       <h2>Heading</h2><ul><li>One <a href="/x">link</a></li><li>Two</li></ul>
       <table><tr><td>Cell</td></tr></table><span><div>Inside a span</div></span>
       <script>var hidden = 1;</script><p hidden>Hidden</p><p style="display:none">Gone</p></body>`,
    );
    expect(blocks.map((b) => b.text)).toEqual([
      'Home Blog',
      'Loose text before',
      'First bold paragraph.',
      'loose text after',
      'Heading',
      'One link',
      'Two',
      'Cell',
      'Inside a span',
    ]);
    for (const block of blocks) expect(block.features).toHaveLength(BLOCK_FEATURES.length);
    const feature = (text: string, name: string) => blocks.find((b) => b.text === text)!.features[BLOCK_FEATURES.indexOf(name)];
    expect(feature('Home Blog', 'in_nav')).toBe(1);
    expect(feature('Home Blog', 'link_density')).toBeGreaterThan(0.8);
    expect([feature('One link', 'in_li'), feature('One link', 'links'), feature('Heading', 'heading_level')]).toEqual([1, 1, 2]);
  });

  it('numbers a list: three or more sibling blocks of one tag and class are one list, anything else none', () => {
    const { blocks } = blocksOf(
      '<body><p>Alone here.</p><ul><li>a</li><li>b</li><li>c</li></ul><div><span class="x"><b>q</b></span></div><ol><li>1</li><li>2</li></ol></body>',
    );
    expect(blocks.map((b) => [b.text, b.list])).toEqual([
      ['Alone here.', -1],
      ['a', 0],
      ['b', 0],
      ['c', 0],
      ['q', -1],
      ['1', -1],
      ['2', -1],
    ]);
  });

  it('describes any page the same way twice, every feature a finite number', () => {
    const pieces = fc.constantFrom(
      '<p>Some words here.</p>',
      '<div class="nav menu"><a href="/x">x</a></div>',
      '<li>item</li>',
      '<span>inline <div>block</div></span>',
      '<h1>Title</h1>',
      'loose',
      '<footer>© 2026</footer>',
      '<table><tr><td>1</td><td>2</td></tr></table>',
      '<article itemprop="articleBody"><p>Body. Text!</p></article>',
    );
    fc.assert(
      fc.property(fc.array(pieces, { maxLength: 30 }), (parts) => {
        const html = `<body>${parts.join('')}</body>`;
        const first = blocksOf(html).blocks.map((b) => b.features);
        expect(blocksOf(html).blocks.map((b) => b.features)).toEqual(first);
        for (const features of first) for (const value of features) expect(Number.isFinite(value)).toBe(true);
      }),
      { numRuns: 200 },
    );
  });

  it('leaves out a dropped block’s own text and any element left with no kept text, and nothing else', () => {
    const { page, blocks } = blocksOf('<body><div>Keep this <ul><li>drop one</li><li>keep two</li></ul><p>drop para</p></div></body>');
    const kept = blocks.map((b) => !b.text.startsWith('drop'));
    const skip = nodesLeftOut(blocks, kept);
    const tree = conversionTreeOf(page.body, { baseUrl: page.baseUrl, includeImages: true, skip });
    expect(tree.textContent.replace(/\s+/g, ' ').trim()).toBe('Keep this keep two');
    // The emptied list item and paragraph go with their text; the list and the div that keep text stay.
    const skipped = [...skip].filter((n) => n.nodeType === NodeType.ELEMENT_NODE).map((n) => (n as HTMLElement).rawTagName);
    expect(skipped.sort()).toEqual(['li', 'p']);
  });
});
