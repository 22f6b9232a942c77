import fc from 'fast-check';
import { JSDOM } from 'jsdom';
import { inertPage } from '../../apps/console/src/results/inert-page';

/**
 * A scraped page is shown in the console with nothing in it that could run or fetch: the
 * console's promise of no request to any host but the gateway. Property: whatever elements and
 * URL-bearing attributes a page has, the inert copy keeps none that would load or navigate,
 * except pictures already inline (data:image).
 */
const { window } = new JSDOM('');
beforeAll(() => {
  (globalThis as { DOMParser?: unknown }).DOMParser = window.DOMParser;
});
afterAll(() => {
  delete (globalThis as { DOMParser?: unknown }).DOMParser;
});

const FETCHING = [
  'src',
  'srcset',
  'href',
  'xlink:href',
  'background',
  'poster',
  'action',
  'formaction',
  'ping',
  'data',
  'lowsrc',
  'longdesc',
  'cite',
  'manifest',
  'usemap',
  'imagesrcset',
];
const ELEMENTS = [
  'img',
  'a',
  'link',
  'script',
  'iframe',
  'video',
  'audio',
  'source',
  'object',
  'embed',
  'form',
  'input',
  'table',
  'body',
  'div',
  'svg',
  'image',
  'area',
  'style',
  'meta',
  'base',
  'picture',
  'blockquote',
];
const VALUES = [
  'https://tracker.example/p.gif',
  '//cdn.example/x.js',
  '/relative/path',
  'javascript:alert(1)',
  'data:image/png;base64,iVBORw0KGgo=',
  'data:text/html,<script>alert(1)</script>',
  ' DATA:image/svg+xml,<svg onload=alert(1)>',
  'x.png 1x, https://a.example/y.png 2x',
];

const element = fc.record({
  name: fc.constantFrom(...ELEMENTS),
  attributes: fc.array(
    fc.tuple(
      fc.constantFrom(...FETCHING, 'onclick', 'onerror', 'style', 'title', 'class'),
      fc.constantFrom(...VALUES, 'background:url(https://a.example/b.png)', 'color: red'),
    ),
    { maxLength: 4 },
  ),
  text: fc.string({ maxLength: 20 }),
});
const escapeAttr = (v: string) => v.replace(/&/g, '&amp;').replace(/"/g, '&quot;');
const html = fc
  .array(element, { minLength: 1, maxLength: 12 })
  .map(
    (elements) =>
      `<!doctype html><html><head><title>t</title><link rel=stylesheet href="https://a.example/s.css"></head><body>${elements
        .map(
          (e) =>
            `<${e.name} ${e.attributes.map(([k, v]) => `${k}="${escapeAttr(v)}"`).join(' ')}>${e.text.replace(/[<&]/g, '')}</${e.name}>`,
        )
        .join('')}</body></html>`,
  );

function loadsOrRuns(output: string): string[] {
  const doc = new window.DOMParser().parseFromString(output, 'text/html');
  const found: string[] = [];
  for (const el of Array.from(
    doc.querySelectorAll('script,style,link,iframe,frame,object,embed,base,meta[http-equiv],form,video,audio,source'),
  ))
    found.push(`<${el.localName}>`);
  for (const el of Array.from(doc.querySelectorAll('*'))) {
    for (const attr of Array.from(el.attributes)) {
      const name = attr.name.toLowerCase();
      const inlineImage = name === 'src' && el.localName === 'img' && /^data:image\/(png|jpe?g|gif|webp|avif);/i.test(attr.value.trim());
      if (FETCHING.includes(name) && !inlineImage) found.push(`${el.localName}[${name}=${attr.value}]`);
      if (name.startsWith('on')) found.push(`${el.localName}[${name}]`);
      if (name === 'style' && /url\s*\(/i.test(attr.value)) found.push(`${el.localName}[style=${attr.value}]`);
    }
  }
  return found;
}

describe('inertPage', () => {
  it('leaves nothing that runs, loads or navigates, whatever the page holds', () => {
    fc.assert(
      fc.property(html, (page) => {
        expect(loadsOrRuns(inertPage(page))).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });

  it('keeps the text, the structure and inline pictures, and says where a link pointed', () => {
    const out = inertPage(
      '<html lang="de"><head><title>A &amp; B</title><style>p{}</style></head><body><h1>Title</h1><p style="color:red">Text <a href="https://a.example/">link</a></p><img src="data:image/png;base64,iVBORw0KGgo=" alt="chart"><img src="https://t.example/p.gif" alt="pixel"><script>alert(1)</script></body></html>',
    );
    expect(out).toContain('<html lang="de">');
    expect(out).toContain('<title>A &amp; B</title>');
    expect(out).toContain('<h1>Title</h1>');
    expect(out).toContain('style="color:red"');
    expect(out).toContain('title="https://a.example/"');
    expect(out).toContain('src="data:image/png;base64,iVBORw0KGgo="');
    expect(out).not.toContain('src="https://t.example');
    expect(out).not.toContain('alert');
  });
});
