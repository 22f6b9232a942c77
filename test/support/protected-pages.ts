/**
 * Pages of anti-bot vendors and CAPTCHA providers, written from their documented markers (headers,
 * cookies, scripts, challenge pages), shared by the protection rules' unit spec and the fixture site
 * of the viability tests. Provider script URLs in them are inert: the fixture site serves every page
 * under `default-src 'self'`, so no browser loads anything from another host.
 */

/** An ordinary article long enough to be a full page (the rules call a page under 1500 visible characters thin). */
export const ARTICLE = `<article><h1>Field notes</h1>${'<p>Rivers carry sediment downstream and lay it down where the current slows, building bars and deltas over the years.</p>'.repeat(20)}</article>`;

export interface VendorPages {
  vendor: string;
  /** What a page served through the vendor carries when it lets the visitor in. */
  present: { headers?: Record<string, string | string[]>; body?: string };
  /** The vendor's challenge or refusal answer. */
  challenge: { status: number; headers?: Record<string, string | string[]>; body: string };
}

export const VENDOR_PAGES: VendorPages[] = [
  {
    vendor: 'datadome',
    present: {
      headers: { 'set-cookie': ['datadome=AHrlqAAAAAMA; Max-Age=31536000'] },
      body: '<script src="https://js.datadome.co/tags.js" async></script>',
    },
    challenge: {
      status: 403,
      headers: { 'x-datadome': 'protected', 'set-cookie': ['datadome=x'] },
      body: "<html><script>var dd={'rt':'c','cid':'AHrlqAAAAAMA','hsh':'E6EAB'}</script><script src=\"https://ct.captcha-delivery.com/c.js\"></script><iframe src=\"https://geo.captcha-delivery.com/captcha/?initialCid=AHrl\"></iframe></html>",
    },
  },
  {
    vendor: 'perimeterx',
    present: { headers: { 'set-cookie': ['_pxvid=1c2d; path=/'] }, body: '<script src="/px/client/main.min.js"></script>' },
    challenge: {
      status: 403,
      headers: { 'set-cookie': ['_pxhd=abc'] },
      body: '<html><head><title>Access to this page has been denied</title></head><body><div id="px-captcha"></div><p>Press &amp; Hold to confirm you are a human (and not a bot).</p></body></html>',
    },
  },
  {
    vendor: 'akamai',
    present: { headers: { server: 'AkamaiGHost', 'set-cookie': ['_abck=ABC~-1~; path=/', 'bm_sz=XYZ'] } },
    challenge: {
      status: 403,
      headers: { server: 'AkamaiGHost' },
      body: '<HTML><HEAD><TITLE>Access Denied</TITLE></HEAD><BODY><H1>Access Denied</H1>You don\'t have permission to access "http&#58;&#47;&#47;www&#46;example&#46;com&#47;" on this server.<P>Reference&#32;&#35;18&#46;7a3c1302&#46;1700000000&#46;1f2e3d4c</BODY></HTML>',
    },
  },
  {
    vendor: 'imperva',
    present: {
      headers: {
        'x-iinfo': '12-345-0 0CNN RT(1700000000 0) q(0 -1 -1 -1) r(0 -1)',
        'set-cookie': ['visid_incap_123=abc', 'incap_ses_456=def'],
      },
    },
    challenge: {
      status: 200,
      headers: { 'x-iinfo': '12-345' },
      body: '<html><head><META NAME="robots" CONTENT="noindex,nofollow"><script src="/_Incapsula_Resource?SWJIYLWA=719d34d31c8e3a6e6fffd425f7e032f3"></script></head><body><iframe style="display:none" src="/_Incapsula_Resource?CWUDNSAI=24&xinfo=1-2"></iframe>Request unsuccessful. Incapsula incident ID: 123000</body></html>',
    },
  },
  {
    vendor: 'kasada',
    present: { body: '<script src="/149e9513-01fa-4fb0-aad4-566afd725d1b/2d206a39-8ed7-437e-a3be-862e0f06eea3/p.js"></script>' },
    challenge: {
      status: 429,
      headers: { 'x-kpsdk-ct': '0aBcD' },
      body: '<html><head><script>window.KPSDK={};KPSDK.now=typeof performance!=="undefined"?function(){return performance.now()}:Date.now;</script><script src="/149e9513-01fa-4fb0-aad4-566afd725d1b/2d206a39-8ed7-437e-a3be-862e0f06eea3/ips.js?tkrm_alpekz_s1.3=0"></script></head><body></body></html>',
    },
  },
  {
    vendor: 'aws-waf',
    present: { headers: { 'set-cookie': ['aws-waf-token=abc; path=/'] } },
    challenge: {
      status: 202,
      headers: { 'x-amzn-waf-action': 'challenge' },
      body: '<html><head><script>window.awsWafCookieDomainList=[];window.gokuProps={"key":"AQIDA","iv":"A6weaQ","context":"xyz"};</script><script src="https://abc.token.awswaf.com/abc/challenge.js"></script></head><body><div id="challenge-container"></div><script>AwsWafIntegration.checkForceRefresh().then(function(){})</script></body></html>',
    },
  },
  {
    vendor: 'sucuri',
    present: { headers: { server: 'Sucuri/Cloudproxy', 'x-sucuri-id': '18012' } },
    challenge: {
      status: 403,
      headers: { server: 'Sucuri/Cloudproxy', 'x-sucuri-id': '18012' },
      body: '<html><head><title>Sucuri WebSite Firewall - Access Denied</title></head><body><h2>Access Denied - Sucuri Website Firewall</h2><p>If you think this was a mistake, contact cloudproxy@sucuri.net</p></body></html>',
    },
  },
  {
    vendor: 'radware',
    present: { headers: { 'set-cookie': ['__uzma=abc', '__uzmb=1700000000'] } },
    challenge: {
      status: 302,
      body: '<html><body><p>Radware Bot Manager Captcha</p><a href="https://validate.perfdrive.com/?ssa=abc">verify</a></body></html>',
    },
  },
];

/** CAPTCHA widgets by provider. */
export const CAPTCHA_WIDGETS: Array<[string, string]> = [
  ['recaptcha', '<div class="g-recaptcha" data-sitekey="6Lc"></div><script src="https://www.google.com/recaptcha/api.js"></script>'],
  ['hcaptcha', '<div class="h-captcha" data-sitekey="10000000"></div><script src="https://js.hcaptcha.com/1/api.js" async defer></script>'],
  ['geetest', '<script src="https://static.geetest.com/v4/gt4.js"></script><div class="geetest_captcha"></div>'],
  ['arkose', '<script src="https://client-api.arkoselabs.com/v2/11111111-1111-1111-1111-111111111111/api.js"></script>'],
  ['friendlycaptcha', '<div class="frc-captcha" data-sitekey="FC"></div>'],
];

export const CLOUDFLARE_HEADERS = { server: 'cloudflare', 'cf-ray': '8d2b4c61e0f3a8b7-AMS', 'set-cookie': ['__cf_bm=abc; path=/'] };
export const CLOUDFLARE_CHALLENGE_PAGE =
  '<html><head><title>Just a moment...</title></head><body><noscript>Enable JavaScript and cookies to continue</noscript><script>window._cf_chl_opt={cvId:"3",cZone:"example.com"};</script><script src="/cdn-cgi/challenge-platform/h/b/orchestrate/chl_page/v1?ray=8d2b"></script></body></html>';
export const CLOUDFLARE_TURNSTILE_PAGE =
  '<html><head><title>Just a moment...</title></head><body><div class="cf-turnstile" data-sitekey="0x4AAAAAAA"></div><script src="https://challenges.cloudflare.com/turnstile/v0/api.js" async defer></script><script>window._cf_chl_opt={}</script></body></html>';
export function cloudflareBlockPage(code: string): string {
  return `<html><head><title>Attention Required! | Cloudflare</title></head><body><div id="cf-error-details"><h1>Sorry, you have been blocked</h1><span class="cf-error-code">${code}</span> Error code: ${code}</div></body></html>`;
}
export const PASSWORD_FORM =
  '<form action="/session" method="post"><input name="email" type="email"><input name="password" type="password"><button>Sign in</button></form>';
