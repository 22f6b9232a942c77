import { CONTENT_RULES_VERSION } from '@lib/contracts';
import { VENDOR_PAGES } from '../../../../test/support/protected-pages';
import { ContentValidator, type FetchedContent } from './content-validator';

const article = (extra = '') =>
  `<html><head><title>A long read</title></head><body><article>${'<p>Real content about a real subject, long enough to count as a page. </p>'.repeat(40)}${extra}</article></body></html>`;
const html = (body: string, title = 'Page') => `<html><head><title>${title}</title></head><body>${body}</body></html>`;

function response(
  statusCode: number,
  body: string | null,
  headers: FetchedContent['headers'] = {},
  contentType: string | null = 'text/html; charset=utf-8',
): FetchedContent {
  return { statusCode, body, headers, contentType };
}

describe(ContentValidator.name, () => {
  const validator = new ContentValidator();

  it.each<
    [
      string,
      FetchedContent,
      {
        usable: boolean;
        blockReason: string | null;
        captchaProviders?: string[];
        protectionStack?: string[];
        potentiallyBlockedByCaptcha?: boolean;
      },
    ]
  >([
    ['an article', response(200, article()), { usable: true, blockReason: null, captchaProviders: [], potentiallyBlockedByCaptcha: false }],
    [
      'a long page with a login reCAPTCHA',
      response(
        200,
        article(
          '<form><div class="g-recaptcha" data-sitekey="x"></div></form><script src="https://www.google.com/recaptcha/api.js"></script>',
        ),
      ),
      { usable: true, blockReason: null, captchaProviders: ['recaptcha'], potentiallyBlockedByCaptcha: false },
    ],
    [
      'a reCAPTCHA interstitial (200)',
      response(
        200,
        html(
          '<p>Please complete the security check.</p><div class="g-recaptcha"></div><script src="https://www.google.com/recaptcha/api.js"></script>',
        ),
      ),
      { usable: false, blockReason: 'captcha', captchaProviders: ['recaptcha'], potentiallyBlockedByCaptcha: true },
    ],
    [
      'an hCaptcha wall (403)',
      response(403, html('<div class="h-captcha"></div><script src="https://js.hcaptcha.com/1/api.js"></script>')),
      { usable: false, blockReason: 'captcha', captchaProviders: ['hcaptcha'] },
    ],
    [
      'a Turnstile check',
      response(
        200,
        html(
          '<div class="cf-turnstile"></div><script src="https://challenges.cloudflare.com/turnstile/v0/api.js"></script>',
          'Verify you are human',
        ),
      ),
      { usable: false, blockReason: 'captcha', captchaProviders: ['turnstile'] },
    ],
    [
      'a DataDome captcha',
      response(403, html('<script src="https://geo.captcha-delivery.com/captcha/"></script>'), { 'x-datadome': 'protected' }),
      { usable: false, blockReason: 'captcha', captchaProviders: ['datadome'], protectionStack: ['datadome'] },
    ],
    [
      'a Cloudflare JS challenge',
      response(
        503,
        html('<div id="cf-wrapper"></div><script src="/cdn-cgi/challenge-platform/h/b/orchestrate/jsch/v1"></script>', 'Just a moment...'),
        { server: 'cloudflare', 'cf-ray': '8a1b' },
      ),
      { usable: false, blockReason: 'cloudflare_challenge', protectionStack: ['cloudflare'] },
    ],
    ['a bare 403', response(403, html('<h1>Forbidden</h1>')), { usable: false, blockReason: 'hard_block' }],
    ['a 429', response(429, 'slow down', {}, 'text/plain'), { usable: false, blockReason: 'hard_block' }],
    [
      'a block page served with 200',
      response(200, html('<h1>Access Denied</h1><p>You have been blocked. Reference #18.2f</p>')),
      { usable: false, blockReason: 'soft_block' },
    ],
    [
      'an empty single-page-app shell',
      response(
        200,
        '<!doctype html><html><head><title>App</title></head><body><div id="root"></div><script src="/static/app.js"></script></body></html>',
      ),
      { usable: false, blockReason: 'empty_shell' },
    ],
    [
      'a noscript "enable JavaScript" shell',
      response(200, html('<noscript>You need to enable JavaScript to run this app.</noscript><script src="/a.js"></script>')),
      { usable: false, blockReason: 'empty_shell' },
    ],
    ['a 404', response(404, html('<h1>Not found</h1>')), { usable: false, blockReason: null }],
    ['a 500', response(500, html('<h1>Server error</h1>')), { usable: false, blockReason: null }],
    ['JSON', response(200, '{"items":[1,2,3]}', {}, 'application/json'), { usable: true, blockReason: null }],
    ['a PDF', response(200, null, {}, 'application/pdf'), { usable: true, blockReason: null }],
    [
      'an Akamai-fronted article',
      response(200, article(), { 'set-cookie': ['_abck=abc; Path=/', 'bm_sz=x'] }),
      { usable: true, blockReason: null, protectionStack: ['akamai'] },
    ],
    [
      'a long article that mentions "access denied"',
      response(200, article('<p>The court found that access denied to the archive was unlawful.</p>')),
      { usable: true, blockReason: null },
    ],
  ])('classifies %s', (_label, input, expected) => {
    const verdict = validator.validate(input);
    expect(verdict).toMatchObject({ ...expected, rulesVersion: CONTENT_RULES_VERSION });
    if (expected.blockReason) expect(verdict.ruleHits).toContain(`verdict:${expected.blockReason}`);
  });

  it('does not count script and style text as visible content', () => {
    const verdict = validator.validate(
      response(200, html(`<script>${'var x = 1;'.repeat(500)}</script><style>${'a{}'.repeat(500)}</style><p>hi</p>`)),
    );
    expect(verdict.visibleTextLength).toBeLessThan(20);
  });
});

describe('ContentValidator on a rendered DOM (browser mode)', () => {
  const validator = new ContentValidator();
  const short = '<html><head><title>Tiny</title></head><body><h1>Rendered by JS</h1><script src="/app.js"></script></body></html>';

  it('does not call a short rendered page an empty shell (its scripts already ran)', () => {
    expect(validator.validate({ statusCode: 200, headers: {}, contentType: 'text/html', body: short }).blockReason).toBe('empty_shell');
    expect(validator.validate({ statusCode: 200, headers: {}, contentType: 'text/html', body: short, rendered: true })).toMatchObject({
      usable: true,
      blockReason: null,
    });
  });

  it('still calls a rendered page with no visible text at all an empty shell', () => {
    const empty = '<html><body><div id="root"></div><script src="/app.js"></script></body></html>';
    expect(validator.validate({ statusCode: 200, headers: {}, contentType: 'text/html', body: empty, rendered: true }).blockReason).toBe(
      'empty_shell',
    );
  });

  // The viability analysis reads the same vendor rules: whatever it calls a vendor's challenge, the
  // validator must refuse (raw or rendered), and the vendor's presence on a full page must pass.
  it.each(VENDOR_PAGES)("refuses $vendor's challenge page and accepts a full page served through it", ({ present, challenge }) => {
    for (const rendered of [false, true]) {
      const refused = validator.validate({ ...response(challenge.status, challenge.body, challenge.headers ?? {}), rendered });
      expect(refused.usable).toBe(false);
      expect(refused.blockReason).not.toBeNull();
      expect(validator.validate({ ...response(200, article(present.body ?? ''), present.headers ?? {}), rendered }).usable).toBe(true);
    }
  });
});
