import { assessJavaScriptNeed } from './javascript-need';

const PARAGRAPHS = Array.from(
  { length: 12 },
  (_, i) => `<p>Paragraph ${i} of the story, with enough words in it to count as something a reader came for.</p>`,
).join('');

describe('assessJavaScriptNeed', () => {
  it('a static page: the raw HTML already holds what the browser shows', () => {
    const html = `<html><body><article id="story"><h1>Story</h1>${PARAGRAPHS}</article><script src="/analytics.js"></script></body></html>`;
    const need = assessJavaScriptNeed(html, html);
    expect(need).toMatchObject({ javascriptRequired: false, browserConfidence: 0, appearedSelector: null });
  });

  it('an app shell filled by scripts: required, confident, and names what to wait for', () => {
    const raw =
      '<html><body><div id="root"></div><noscript>You need to enable JavaScript to run this app.</noscript><script src="/static/js/main.js"></script></body></html>';
    const rendered = `<html><body><div id="root"><main id="feed"><h1>Feed</h1>${PARAGRAPHS}</main></div></body></html>`;
    const need = assessJavaScriptNeed(raw, rendered);
    expect(need.javascriptRequired).toBe(true);
    expect(need.browserConfidence).toBeGreaterThanOrEqual(0.95);
    expect(need.appearedSelector).toBe('css:#root');
    expect(need.reasons).toEqual(
      expect.arrayContaining(['the raw HTML has an empty application root', 'the raw HTML asks the reader to enable JavaScript']),
    );
  });

  it('server-rendered page that scripts extend a little: not required, low confidence', () => {
    const raw = `<html><body><article>${PARAGRAPHS}</article><div id="comments"></div></body></html>`;
    const rendered = `<html><body><article>${PARAGRAPHS}</article><div id="comments"><p>Nice post, thanks for writing it up so clearly.</p></div></body></html>`;
    const need = assessJavaScriptNeed(raw, rendered);
    expect(need.javascriptRequired).toBe(false);
    expect(need.browserConfidence).toBeLessThan(0.2);
  });

  it('content loaded by XHR into a server-rendered frame: required without a shell marker', () => {
    const raw =
      '<html><body><header><h1>Shop</h1><nav>Home · Deals · Help</nav></header><section id="products"><p>Loading…</p></section></body></html>';
    const rendered = `<html><body><header><h1>Shop</h1><nav>Home · Deals · Help</nav></header><section id="products"><ul>${Array.from({ length: 30 }, (_, i) => `<li>Product ${i}: a sturdy thing at a fair price, in stock</li>`).join('')}</ul></section></body></html>`;
    const need = assessJavaScriptNeed(raw, rendered);
    expect(need).toMatchObject({ javascriptRequired: true, appearedSelector: 'css:#products' });
    expect(need.browserConfidence).toBeGreaterThan(0.6);
  });

  it('a failed rendering proves nothing: not required, confidence 0', () => {
    const raw = `<html><body>${PARAGRAPHS}</body></html>`;
    expect(assessJavaScriptNeed(raw, '<html><body></body></html>')).toMatchObject({ javascriptRequired: false, browserConfidence: 0 });
    expect(assessJavaScriptNeed(raw, null)).toMatchObject({ javascriptRequired: false, browserConfidence: 0 });
  });
});
