import fc from 'fast-check';
import { MainContentReader } from './main-content-reader';
import { MarkdownConverter } from './markdown-converter';
import { ParsedPage } from './parsed-page';

/**
 * Markup as the web writes it: elements left open and closing tags that skip some. A browser closes
 * what is left open at its parent's end; the parse must too, or it loses the <body> (193 of WCXB's
 * 1,497 real pages did) and with it the document's shape.
 */
describe('ParsedPage on unclosed and mis-nested markup', () => {
  type Tree = { tag: string; text: string; closed: boolean; children: Tree[] };
  const tree: fc.Memo<Tree> = fc.memo((depth) =>
    fc.record({
      tag: fc.constantFrom('div', 'section', 'span', 'b', 'article', 'header', 'p'),
      text: fc.stringMatching(/^[a-z]{3,8}$/),
      closed: fc.boolean(),
      children: depth > 1 ? fc.array(tree(depth - 1), { maxLength: 3 }) : fc.constant([]),
    }),
  );
  // A <p> is closed by any block opened inside it, as in a browser: its words stay in order all the same.
  const markup = (t: Tree): string => `<${t.tag}>${t.text} ${t.children.map(markup).join('')}${t.closed ? `</${t.tag}>` : ''}`;
  const wordsOf = (t: Tree): string[] => [t.text, ...t.children.flatMap(wordsOf)];

  let converter: MarkdownConverter;
  beforeAll(async () => {
    converter = new MarkdownConverter(await MainContentReader.load());
  });

  it('property: the body is found, and every word is in it in source order', () => {
    fc.assert(
      fc.property(fc.array(tree(4), { minLength: 1, maxLength: 4 }), (trees) => {
        const html = `<!DOCTYPE html>\n<html><head><title>T</title></head><body>${trees.map(markup).join('')}</body></html>`;
        const page = new ParsedPage(html, 'https://example.com/');
        expect(page.body.rawTagName.toLowerCase()).toBe('body');
        const words = trees.flatMap(wordsOf);
        expect(page.body.text.split(/\s+/).filter(Boolean)).toEqual(words);
        const { markdown } = converter.convert(page);
        expect(markdown).not.toMatch(/DOCTYPE|<\/?[a-z]/i);
      }),
      { numRuns: 300 },
    );
  });

  it('closes what a closing tag skips, as a browser does', () => {
    const page = new ParsedPage('<html><body><div><p>a<span>b</div><p>c</body></html>', 'https://example.com/');
    expect(page.body.innerHTML).toBe('<div><p>a<span>b</span></p></div><p>c</p>');
  });
});
