import fc from 'fast-check';
import { BOILERPLATE_WORDS, CHROME_BLOCKS } from '../../../../test/support/page-chrome';
import shipped from './main-content-model.json';
import { MainContentModel, type MainContentModelFile } from './block-model';
import { PAGE_FEATURES } from './content-blocks';
import { SelectorExtractor } from '../extraction/selector-extractor';
import { MARKDOWN_RULES } from './markdown-rules';
import { PageFormatter } from './page-formatter';
import { REMOVAL_REASONS } from './main-content-locator';
import { MainContentReader } from './main-content-reader';
import { MarkdownConverter } from './markdown-converter';
import { ParsedPage } from './parsed-page';

const URL = 'https://example.com/posts/green-tea';
const SHIPPED = shipped as unknown as MainContentModelFile;
const PARAGRAPH = 'Green tea wants water below boiling, around eighty degrees, and a short steep of two minutes so it stays sweet. ';

/**
 * Main content as the shipped model reads it (decision 0041), over the rules: what a reader of the
 * page would call its content is kept and its chrome is not, wherever the chrome sits; the report
 * says what the model did; the same page always reads the same.
 */
describe('main content read by the model', () => {
  let converter: MarkdownConverter;
  beforeAll(async () => {
    converter = new MarkdownConverter(await MainContentReader.load());
  });
  const main = (html: string, url = URL) => converter.convert(new ParsedPage(html, url), { onlyMainContent: true });

  const boilerplate = fc.constantFrom(...CHROME_BLOCKS);

  it('property: keeps every paragraph of an article and none of the chrome around it, wherever it sits', () => {
    fc.assert(
      fc.property(
        fc.array(boilerplate, { minLength: 1, maxLength: 6 }),
        fc.array(boilerplate, { minLength: 1, maxLength: 6 }),
        fc.integer({ min: 3, max: 8 }),
        fc.constantFrom('article', 'main', 'div'),
        (before, after, paragraphs, wrapper) => {
          const body = Array.from({ length: paragraphs }, (_, i) => `<p>${i + 1}. ${PARAGRAPH.repeat(2)}</p>`).join('');
          const article = `<${wrapper}><h1>Brewing green tea</h1>${body}</${wrapper}>`;
          const html = `<html><head><title>Tea</title></head><body>${before.join('')}${article}${after.join('')}</body></html>`;
          const { markdown } = main(html);
          for (let i = 1; i <= paragraphs; i += 1) expect(markdown).toContain(`${i}\\. Green tea wants water`);
          expect(markdown).not.toMatch(BOILERPLATE_WORDS);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('leaves a menu the rules set apart as navigation out, beside an article in a plain <div> (CI found the model restoring it)', () => {
    const [menu, nav] = [CHROME_BLOCKS[6]!, CHROME_BLOCKS[0]!];
    const body = Array.from({ length: 6 }, (_, i) => `<p>${i + 1}. ${PARAGRAPH.repeat(2)}</p>`).join('');
    const html = `<html><head><title>Tea</title></head><body>${menu}<div><h1>Brewing green tea</h1>${body}</div>${menu}${nav}</body></html>`;
    const { markdown } = main(html);
    expect(markdown).toContain('6\\. Green tea');
    expect(markdown).not.toMatch(BOILERPLATE_WORDS);
  });

  it('keeps or leaves out a list’s items together (one menu item was kept once for reading like the article around it)', () => {
    const [menu, cookie, footer] = [CHROME_BLOCKS[6]!, CHROME_BLOCKS[4]!, CHROME_BLOCKS[2]!];
    const body = Array.from({ length: 5 }, (_, i) => `<p>${i + 1}. ${PARAGRAPH.repeat(2)}</p>`).join('');
    const html = `<html><head><title>Tea</title></head><body>${menu}${cookie}<main><h1>Brewing green tea</h1>${body}</main>${menu}${footer}</body></html>`;
    const { markdown } = main(html);
    expect(markdown).toContain('5\\. Green tea');
    expect(markdown).not.toMatch(/Black|Oolong|White|Herbal/);
  });

  it('says what it did: the kind it read with its probability, the characters kept, what it left out and why', () => {
    const html = `<html><head><title>Tea</title></head><body>
      <nav><a href="/">Home</a> <a href="/shop">Shop</a> <a href="/about">About us</a> <a href="/c">Contact</a></nav>
      <article><h1>Brewing green tea</h1>${`<p>${PARAGRAPH.repeat(2)}</p>`.repeat(5)}</article>
      <footer><p>Copyright Tea Times, all rights reserved in every land.</p></footer></body></html>`;
    const result = main(html);
    expect(result.mainContentFallback).toBe(false);
    expect(result.pageKind).toBe('article');
    const report = result.mainContent!;
    expect(report.evidence[0]).toMatch(/^model:article \d\.\d\d$/);
    expect(report.whole_page).toBe(false);
    expect(report.characters).toBeLessThan(report.page_characters);
    expect(report.confidence).toBeGreaterThan(0.5);
    expect(report.confidence).toBeLessThanOrEqual(1);
    for (const reason of Object.keys(report.removed)) expect([...REMOVAL_REASONS, 'other']).toContain(reason);
    expect(report.removed.navigation).toBeGreaterThan(0);
    expect(report.removed.footer).toBeGreaterThan(0);
    expect(main(html).markdown).toBe(result.markdown);
  });

  it('answers a page with no main content with empty markdown and the reason (the scrape’s verdict reads the page, not the markdown)', async () => {
    // The shipped classifier of pages without main content, made sure of every page: what it does when it fires.
    const sure = { format: 'lightgbm-flat-1' as const, features: PAGE_FEATURES as string[], threshold: 0.9 };
    const model = new MainContentModel({
      ...SHIPPED,
      noContent: { ...sure, trees: [{ feature: [], split: [], left: [], right: [], leaf: [5] }] },
    });
    const formatter = new PageFormatter(
      new MarkdownConverter(await MainContentReader.load(), MARKDOWN_RULES, model),
      new SelectorExtractor(),
    );
    const html = `<html><head><title>Sign in</title></head><body><nav><a href="/">Home</a></nav><form><label>Email</label><input name="e"><button>Sign in</button></form><img src="/logo.png" alt="logo"></body></html>`;
    const formatted = formatter.format(
      { format: 'markdown' as const, only_main_content: true, include_metadata: true, include_images: true, extract: null },
      html,
      URL,
      {
        scriptsRan: false,
      },
    );
    expect(formatted.markdown).toBe('');
    expect(formatted.notes).toEqual([
      expect.stringMatching(/^only_main_content found no main content on this page \(model:no-main-content 0\.99/),
    ]);
    expect(formatted.metadata!.main_content).toMatchObject({
      characters: 0,
      whole_page: false,
      removed: { no_main_content: expect.any(Number) },
    });
    // Without only_main_content the page is the page.
    expect(
      formatter.format(
        { format: 'markdown' as const, only_main_content: false, include_metadata: false, include_images: true, extract: null },
        html,
        URL,
        { scriptsRan: false },
      ).markdown,
    ).toContain('Sign in');
  });
});
