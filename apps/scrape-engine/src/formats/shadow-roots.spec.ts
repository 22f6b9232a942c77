import fc from 'fast-check';
import { type Node, NodeType, parse } from 'node-html-parser';
import { MainContentReader } from './main-content-reader';
import { MarkdownConverter } from './markdown-converter';
import { ParsedPage, PARSE_OPTIONS } from './parsed-page';
import { flattenShadowRoots } from './shadow-roots';

/** The flattened page's text nodes in document order, one space between each. */
const flat = (html: string) => {
  const root = parse(html, PARSE_OPTIONS);
  flattenShadowRoots(root);
  const texts: string[] = [];
  const walk = (node: Node) => {
    if (node.nodeType === NodeType.TEXT_NODE) texts.push(node.rawText);
    node.childNodes.forEach(walk);
  };
  walk(root);
  return texts.join(' ').replace(/\s+/g, ' ').trim();
};

describe(flattenShadowRoots.name, () => {
  it('puts a host’s light children where its default slot is, after the shadow tree’s own content', () => {
    expect(flat('<x-card><template shadowrootmode="open"><h2>Title</h2><slot></slot><p>Footer</p></template><p>Body</p></x-card>')).toBe(
      'Title Body Footer',
    );
  });

  it('fills named slots in the shadow tree’s order, not the light DOM’s, and shows fallback where nothing is assigned', () => {
    const html =
      '<x-a><template shadowrootmode="open"><slot name="b"></slot> <slot name="a"></slot> <slot name="c">fallback C</slot></template>' +
      '<span slot="a">A</span><span slot="b">B</span></x-a>';
    expect(flat(html)).toBe('B A fallback C');
  });

  it('flattens nested roots, a host slotted into another, closed roots and the older shadowroot attribute', () => {
    const html =
      '<outer-el><template shadowrootmode="open"><header>outer</header><inner-el><template shadowrootmode="closed"><em>inner</em><slot></slot></template><slot></slot></inner-el></template>' +
      '<legacy-el><template shadowroot="open">legacy <slot></slot></template>light</legacy-el></outer-el>';
    expect(flat(html)).toBe('outer inner legacy light');
  });

  it('keeps a template without a mode inert, and a light child with no slot to go to out of the rendering', () => {
    const root = parse(
      '<x-b><template shadowrootmode="open"><slot name="only"></slot></template><span>unassigned</span><span slot="only">shown</span></x-b><template><p>inert</p></template>',
      PARSE_OPTIONS,
    );
    expect(flattenShadowRoots(root)).toBe(true);
    expect(root.querySelector('x-b')!.text).toBe('shown');
    expect(root.querySelector('template')!.text).toBe('inert');
  });

  it('changes nothing on a page without shadow roots', () => {
    const tag = fc.constantFrom('div', 'p', 'span', 'template', 'slot', 'section', 'x-el');
    type Tree = string;
    const { tree } = fc.letrec<{ tree: Tree }>((self) => ({
      tree: fc.oneof(
        { depthSize: 'small' },
        fc.stringMatching(/^[a-z ]{0,8}$/),
        fc.tuple(tag, fc.array(self('tree'), { maxLength: 4 })).map(([name, children]) => `<${name}>${children.join('')}</${name}>`),
      ),
    }));
    fc.assert(
      fc.property(tree, (html) => {
        const root = parse(html, PARSE_OPTIONS);
        const before = root.toString();
        expect(flattenShadowRoots(root)).toBe(false);
        expect(root.toString()).toBe(before);
      }),
      { numRuns: 200 },
    );
  });
});

describe('declarative shadow DOM in markdown (simple mode)', () => {
  let converter: MarkdownConverter;
  beforeAll(async () => {
    converter = new MarkdownConverter(await MainContentReader.load());
  });

  it('reads a page that is only a shadow root', () => {
    const html =
      '<!doctype html><html><body><app-root><template shadowrootmode="open"><h1>Inside the shadow</h1><p>Text a reader sees, rendered from a declarative shadow root.</p><slot></slot></template><p>Slotted from the light DOM.</p></app-root></body></html>';
    for (const scriptsRan of [false, true]) {
      const markdown = converter.convert(new ParsedPage(html, 'https://example.com/', { scriptsRan }), {}).markdown;
      expect(markdown).toContain('# Inside the shadow');
      expect(markdown.indexOf('rendered from a declarative shadow root')).toBeLessThan(markdown.indexOf('Slotted from the light DOM'));
    }
  });
});
