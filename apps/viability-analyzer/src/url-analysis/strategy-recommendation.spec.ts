import type { ProtectionEvidence } from '@lib/page-evidence';
import type { ApiDiscovery } from './api-discovery';
import type { JavaScriptNeed } from './javascript-need';
import { type ModeTest, recommendStrategy, type UrlFindings } from './strategy-recommendation';

const URL_ = 'https://shop.example/list';
const clean: ProtectionEvidence = {
  vendorsPresent: [],
  vendorsChallenging: [],
  cloudflareLevel: 'none',
  captchaDetected: false,
  captchaProviders: [],
  loginWall: { detected: false, evidence: [] },
  ruleHits: [],
};
const ok: ModeTest = { success: true, status_code: 200, blocked: false, captcha_type: null, time_ms: 120, credits: 1, error: null };
const refused: ModeTest = { success: false, status_code: 403, blocked: true, captcha_type: null, time_ms: 90, credits: 1, error: null };
const staticPage: JavaScriptNeed = {
  javascriptRequired: false,
  browserConfidence: 0.02,
  rawTextLength: 4000,
  renderedTextLength: 4100,
  appearedSelector: null,
  reasons: [],
};
const spa: JavaScriptNeed = {
  javascriptRequired: true,
  browserConfidence: 0.93,
  rawTextLength: 40,
  renderedTextLength: 3900,
  appearedSelector: 'css:#root',
  reasons: [],
};
const noApi: ApiDiscovery = { apiDetected: false, apiEndpoints: [], embeddedData: [], authHeadersSeen: false, reasons: [] };
const openApi: ApiDiscovery = {
  apiDetected: true,
  apiEndpoints: ['https://api.shop.example/items?page=1'],
  embeddedData: [],
  authHeadersSeen: false,
  reasons: [],
};
const findings = (extra: Partial<UrlFindings>): UrlFindings => ({
  url: URL_,
  protection: clean,
  javascript: staticPage,
  api: noApi,
  apiAuthRequired: null,
  tests: {},
  ...extra,
});

describe('recommendStrategy, rule by rule', () => {
  it('1. a login wall is blocked, whatever else worked', () => {
    const r = recommendStrategy(
      findings({
        protection: { ...clean, loginWall: { detected: true, evidence: ['redirect:/login'] } },
        tests: { simple_request: ok, extract_html: ok },
      }),
    );
    expect(r).toMatchObject({ strategy: 'blocked', difficulty: 'blocked', suggestedRequest: null, canUseExtractHtml: true });
    expect(r.reasons[0]).toContain('login wall');
  });

  it('2. open JSON endpoints behind a JavaScript page → api, with the endpoint to fetch', () => {
    const r = recommendStrategy(
      findings({
        javascript: spa,
        api: openApi,
        apiAuthRequired: false,
        tests: { simple_request: ok, extract_html: { ...ok, success: false }, browser: { ...ok, credits: 5 } },
      }),
    );
    expect(r).toMatchObject({ strategy: 'api', difficulty: 'medium', suggestedRequest: { url: 'https://api.shop.example/items?page=1' } });
  });

  it('2. not api when the endpoints need credentials (full depth replay) or the page needs no JavaScript', () => {
    expect(recommendStrategy(findings({ javascript: spa, api: openApi, apiAuthRequired: true, tests: { browser: ok } })).strategy).toBe(
      'browser',
    );
    expect(
      recommendStrategy(
        findings({ javascript: spa, api: { ...openApi, authHeadersSeen: true }, apiAuthRequired: null, tests: { browser: ok } }),
      ).strategy,
    ).toBe('browser');
    expect(recommendStrategy(findings({ javascript: staticPage, api: openApi, tests: { extract_html: ok } })).strategy).toBe(
      'extract_html',
    );
  });

  it('3. the simple fetch delivers and no JavaScript is needed → extract_html: easy, or medium with retry_on_block behind a vendor', () => {
    expect(recommendStrategy(findings({ tests: { simple_request: ok, extract_html: ok } }))).toMatchObject({
      strategy: 'extract_html',
      difficulty: 'easy',
      suggestedRequest: { url: URL_, format: 'markdown' },
    });
    const behindCloudflare = recommendStrategy(
      findings({ protection: { ...clean, vendorsPresent: ['cloudflare'], cloudflareLevel: 'present' }, tests: { extract_html: ok } }),
    );
    expect(behindCloudflare).toMatchObject({
      strategy: 'extract_html',
      difficulty: 'medium',
      suggestedRequest: { url: URL_, format: 'markdown', retry_on_block: true },
    });
  });

  it('3. static and unblocked, but its main content did not convert → still extract_html, asking for html', () => {
    const r = recommendStrategy(
      findings({
        tests: { simple_request: ok, extract_html: { ...ok, success: false, error: 'thin_main_content' }, browser: { ...ok, credits: 5 } },
      }),
    );
    expect(r).toMatchObject({ strategy: 'extract_html', difficulty: 'easy', suggestedRequest: { url: URL_, format: 'html' } });
    expect(r.reasons[0]).toContain('thin_main_content');
  });

  it('4. only the browser delivers → browser: light for a plain SPA, waiting for what appeared', () => {
    const r = recommendStrategy(
      findings({ javascript: spa, tests: { simple_request: ok, extract_html: { ...ok, success: false }, browser: { ...ok, credits: 5 } } }),
    );
    expect(r).toMatchObject({
      strategy: 'browser',
      difficulty: 'medium',
      canUseBrowser: true,
      suggestedRequest: {
        url: URL_,
        browser: true,
        browser_type: 'light',
        actions: [{ type: 'wait-for-selector', selector: 'css:#root', time: 10_000 }],
      },
    });
  });

  it('4. heavy with retry_on_block and hard when the browser got past a challenging vendor', () => {
    const r = recommendStrategy(
      findings({
        protection: { ...clean, vendorsPresent: ['datadome'], vendorsChallenging: ['datadome'] },
        tests: { simple_request: refused, extract_html: refused, browser: { ...ok, credits: 5 } },
      }),
    );
    expect(r).toMatchObject({
      strategy: 'browser',
      difficulty: 'hard',
      suggestedRequest: { browser: true, browser_type: 'heavy', retry_on_block: true },
    });
  });

  it('5. quick depth: an empty app shell → browser (untested); a JavaScript challenge stays blocked (spec 4.6), pointing at a deeper test', () => {
    const shell = recommendStrategy(
      findings({
        javascript: { ...spa, renderedTextLength: 0, appearedSelector: null },
        api: null,
        tests: { simple_request: { ...ok, success: false, error: 'empty_shell' } },
      }),
    );
    expect(shell).toMatchObject({
      strategy: 'browser',
      difficulty: 'medium',
      suggestedRequest: { url: URL_, browser: true, browser_type: 'light' },
    });
    expect(shell.reasons[0]).toContain('not tested');
    const jsChallenge = {
      ...clean,
      vendorsPresent: ['cloudflare'],
      vendorsChallenging: ['cloudflare'],
      cloudflareLevel: 'challenge' as const,
    };
    const quick = recommendStrategy(findings({ javascript: null, api: null, protection: jsChallenge, tests: { simple_request: refused } }));
    expect(quick).toMatchObject({ strategy: 'blocked', difficulty: 'blocked' });
    expect(quick.reasons.join(' ')).toContain('depth standard or full');
    const interactive = recommendStrategy(
      findings({
        javascript: null,
        api: null,
        protection: { ...jsChallenge, cloudflareLevel: 'interactive', captchaDetected: true, captchaProviders: ['turnstile'] },
        tests: { simple_request: refused },
      }),
    );
    expect(interactive).toMatchObject({ strategy: 'blocked' });
    expect(interactive.reasons.join(' ')).not.toContain('depth standard or full');
  });

  it('6. nothing delivered: blocked, saying why (CAPTCHA, Cloudflare block, refusal, or just failure)', () => {
    const captcha = recommendStrategy(
      findings({
        protection: { ...clean, captchaDetected: true, captchaProviders: ['hcaptcha'] },
        tests: { simple_request: refused, browser: refused },
      }),
    );
    expect(captcha).toMatchObject({ strategy: 'blocked', difficulty: 'blocked', suggestedRequest: null });
    expect(captcha.reasons[0]).toBe('a CAPTCHA (hcaptcha)');
    const cfBlock = recommendStrategy(
      findings({
        protection: { ...clean, vendorsPresent: ['cloudflare'], vendorsChallenging: ['cloudflare'], cloudflareLevel: 'block' },
        tests: { simple_request: refused, browser: refused },
      }),
    );
    expect(cfBlock.reasons[0]).toBe('Cloudflare block; refused by cloudflare');
    const down = recommendStrategy(
      findings({
        tests: {
          simple_request: { ...refused, status_code: null, blocked: false, error: 'dns_error' },
          browser: { ...refused, status_code: null, blocked: false },
        },
      }),
    );
    expect(down).toMatchObject({ strategy: 'blocked', canUseSimpleRequest: false, canUseBrowser: false });
    expect(down.reasons[0]).toBe('no mode delivered the content');
  });
});
