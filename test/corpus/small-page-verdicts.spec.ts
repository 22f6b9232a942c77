import fc from 'fast-check';
import { ContentValidator } from '../../apps/scrape-engine/src/content-validation/content-validator';
import { assessJavaScriptNeed } from '../../apps/viability-analyzer/src/url-analysis/javascript-need';
import { CAPTCHA_WIDGETS, CLOUDFLARE_CHALLENGE_PAGE, CLOUDFLARE_TURNSTILE_PAGE, VENDOR_PAGES } from '../support/protected-pages';

/**
 * Small pages judged by evidence, not by size (issue 36): the content verdict of a simple fetch
 * and the viability analysis's "JavaScript required" agree with what the page is, whatever its
 * length — content with inert scripts is content, a page its scripts build is a shell, a page that
 * serves its content in noscript is content, and a page whose purpose is a challenge is blocked.
 */
const validator = new ContentValidator();
const verdictOf = (body: string, statusCode = 200) => validator.validate({ statusCode, headers: {}, contentType: 'text/html', body });
const page = (body: string, head = '<title>Page</title>') => `<!doctype html><html><head>${head}</head><body>${body}</body></html>`;

const word = fc.stringMatching(/^[a-z]{2,9}$/);
const sentence = fc.array(word, { minLength: 3, maxLength: 9 }).map((w) => `${w.join(' ')}.`);
/** Markup with some words: a heading, paragraphs, a list of links, a table row. */
const contentBlock = fc.oneof(
  sentence.map((s) => `<h2>${s}</h2>`),
  sentence.map((s) => `<p>${s}</p>`),
  fc
    .array(word, { minLength: 2, maxLength: 12 })
    .map((ws) => `<ul>${ws.map((w, i) => `<li><a href="/p/${i}">${w}</a></li>`).join('')}</ul>`),
  fc.tuple(word, word).map(([a, b]) => `<table><tr><td>${a}</td><td>${b}</td></tr></table>`),
);
/** Scripts that do not build the page: analytics, a log line, JSON-LD, a small widget loader. */
const inertScript = fc.constantFrom(
  '<script>console.log(1)</script>',
  '<script type="application/ld+json">{"@type":"WebPage","name":"x"}</script>',
  "<script>window.dataLayer=window.dataLayer||[];function gtag(){dataLayer.push(arguments)}gtag('js',new Date());</script>",
  '<script src="/analytics.js" async></script>',
  '<script>document.documentElement.className+=" js"</script>',
);
const textOf = (html: string) =>
  html
    .replace(/<[^>]*>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();

describe('small pages are judged by evidence, not by size', () => {
  it('content with inert scripts is usable at any size from 20 characters (12 links and a console.log is a page)', () => {
    fc.assert(
      fc.property(fc.array(contentBlock, { minLength: 1, maxLength: 6 }), fc.array(inertScript, { maxLength: 3 }), (blocks, scripts) => {
        const body = blocks.join('');
        fc.pre(textOf(body).length >= 20);
        const verdict = verdictOf(page(body + scripts.join('')));
        expect(verdict).toMatchObject({ usable: true, blockReason: null });
      }),
      { numRuns: 300 },
    );
  });

  it('a page its scripts build (an empty app root, a script writing the body, boot data holding the text) is an empty shell, and the viability analysis says JavaScript is required once rendered', () => {
    const built = fc.tuple(fc.array(contentBlock, { minLength: 1, maxLength: 4 }), fc.nat(3)).map(([blocks, kind]) => {
      const rendered = blocks.join('');
      const json = JSON.stringify({ props: { pageProps: { body: textOf(rendered).repeat(8) } } });
      const raw = [
        page('<div id="root"></div><script src="/static/app.js"></script>'),
        page(`<script>document.body.innerHTML=${JSON.stringify(rendered)}</script>`),
        page(`<div id="__next"></div><script id="__NEXT_DATA__" type="application/json">${json}</script>`),
        page(
          '<app-root></app-root><script src="/main.js" type="module"></script><noscript>Please enable JavaScript to continue.</noscript>',
        ),
      ][kind]!;
      return { raw, rendered: page(rendered), text: textOf(rendered) };
    });
    fc.assert(
      fc.property(built, ({ raw, rendered, text }) => {
        fc.pre(text.length >= 20);
        expect(verdictOf(raw)).toMatchObject({ usable: false, blockReason: 'empty_shell' });
        expect(validator.validate({ statusCode: 200, headers: {}, contentType: 'text/html', body: rendered, rendered: true }).usable).toBe(
          true,
        );
        expect(assessJavaScriptNeed(raw, rendered).javascriptRequired).toBe(true);
      }),
      { numRuns: 200 },
    );
  });

  it('a page that already holds what rendering shows does not need JavaScript, at any size', () => {
    fc.assert(
      fc.property(fc.array(contentBlock, { minLength: 1, maxLength: 6 }), fc.array(inertScript, { maxLength: 2 }), (blocks, scripts) => {
        const raw = page(blocks.join('') + scripts.join(''));
        expect(assessJavaScriptNeed(raw, raw).javascriptRequired).toBe(false);
      }),
      { numRuns: 200 },
    );
  });

  it('content served in noscript to clients without JavaScript is content (a simple fetch is such a client)', () => {
    fc.assert(
      fc.property(fc.array(contentBlock, { minLength: 4, maxLength: 12 }), (blocks) => {
        const posts = blocks.join('');
        fc.pre(textOf(posts).length >= 200);
        const raw = page(`<section id="main"></section><noscript data-path="/t/1">${posts}</noscript><script src="/app.js"></script>`);
        expect(verdictOf(raw)).toMatchObject({ usable: true, blockReason: null });
        // Rendering shows the same posts: nothing gained, no browser needed.
        expect(assessJavaScriptNeed(raw, page(posts)).javascriptRequired).toBe(false);
      }),
      { numRuns: 100 },
    );
  });

  it("a CAPTCHA widget beside a page's content is not a gate; a page whose purpose is the challenge is blocked, whatever its size", () => {
    fc.assert(
      fc.property(
        fc.array(contentBlock, { minLength: 3, maxLength: 10 }),
        fc.constantFrom(...CAPTCHA_WIDGETS),
        fc.constantFrom('Verify you are human', 'Please complete the security check to continue', 'Press &amp; Hold to confirm'),
        (blocks, [provider, widget], phrase) => {
          const content = blocks.join('');
          fc.pre(textOf(content).length >= 200);
          // A sign-up form or a comment box with a widget, on a page with its content.
          expect(verdictOf(page(`${content}<form><textarea name="comment"></textarea>${widget}</form>`))).toMatchObject({
            usable: true,
            blockReason: null,
            captchaProviders: [provider],
          });
          // The challenge page: a phrase and the widget, or the widget and almost nothing.
          expect(verdictOf(page(`<h1>${phrase}</h1>${widget}`)).blockReason).toBe('captcha');
          expect(verdictOf(page(`<p>${phrase}</p>${widget}`, `<title>${phrase}</title>`)).blockReason).toBe('captcha');
        },
      ),
      { numRuns: 100 },
    );
  });

  it("every vendor's block page is blocked, and the same vendor's sensor on a small content page is not", () => {
    for (const { vendor, challenge, present } of VENDOR_PAGES) {
      const refused = validator.validate({
        statusCode: challenge.status,
        headers: challenge.headers ?? {},
        contentType: 'text/html',
        body: challenge.body,
      });
      expect({ vendor, usable: refused.usable }).toEqual({ vendor, usable: false });
      const small = page(`<h1>Kettle</h1><p>A steel kettle for the stove, two litres, whistling lid.</p>${present.body ?? ''}`);
      const served = validator.validate({ statusCode: 200, headers: present.headers ?? {}, contentType: 'text/html', body: small });
      expect({ vendor, usable: served.usable }).toEqual({ vendor, usable: true });
    }
    for (const body of [CLOUDFLARE_CHALLENGE_PAGE, CLOUDFLARE_TURNSTILE_PAGE]) expect(verdictOf(body, 403).usable).toBe(false);
    expect(verdictOf(CLOUDFLARE_CHALLENGE_PAGE, 200).usable).toBe(false);
    expect(verdictOf(CLOUDFLARE_TURNSTILE_PAGE, 200).usable).toBe(false);
  });
});
