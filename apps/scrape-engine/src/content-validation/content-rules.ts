/**
 * What the content validator looks for, as data. The rule version and the human-readable rules
 * live in @lib/contracts (batch-orchestrator reports them as a run's success_criterion); bump the
 * version there whenever anything here changes meaning.
 */
export { CONTENT_RULES_VERSION, SUCCESS_RULES } from '@lib/contracts';

export interface Signature {
  /** Reported name (captcha_providers / protection_stack). */
  name: string;
  /** Lower-case substrings searched in the HTML. */
  markers: string[];
  /** Response header names (lower case) whose presence reveals the provider. */
  headers?: string[];
  /** Cookie name prefixes (set-cookie) that reveal the provider. */
  cookies?: string[];
  /** `server` header values (lower case) that reveal the provider. */
  servers?: string[];
}

export const CAPTCHA_PROVIDERS: Signature[] = [
  { name: 'recaptcha', markers: ['google.com/recaptcha', 'recaptcha.net/recaptcha', 'class="g-recaptcha', 'grecaptcha.'] },
  { name: 'hcaptcha', markers: ['hcaptcha.com/1/api.js', 'class="h-captcha', 'js.hcaptcha.com'] },
  { name: 'turnstile', markers: ['challenges.cloudflare.com/turnstile', 'class="cf-turnstile'] },
  { name: 'geetest', markers: ['static.geetest.com', 'geetest_captcha', 'initgeetest'] },
  { name: 'arkose', markers: ['arkoselabs.com', 'funcaptcha'] },
  { name: 'datadome', markers: ['captcha-delivery.com', 'geo.captcha-delivery'] },
  { name: 'perimeterx', markers: ['px-captcha', '_pxcaptcha'] },
  { name: 'aws-waf', markers: ['captcha.awswaf', 'awswafcaptcha', 'aws-waf-token'] },
  { name: 'friendlycaptcha', markers: ['frc-captcha', 'friendlycaptcha'] },
  { name: 'mtcaptcha', markers: ['mtcaptcha'] },
];

export const PROTECTION_PROVIDERS: Signature[] = [
  { name: 'cloudflare', markers: ['/cdn-cgi/challenge-platform', '__cf_chl_', 'cf-browser-verification'], headers: ['cf-ray', 'cf-mitigated'], cookies: ['__cf_bm', 'cf_clearance'], servers: ['cloudflare'] },
  { name: 'akamai', markers: ['_abck', 'akam/13'], cookies: ['_abck', 'ak_bmsc', 'bm_sz'], servers: ['akamaighost', 'akamainetstorage'] },
  { name: 'imperva', markers: ['_incapsula_resource', 'incapsula incident'], headers: ['x-iinfo'], cookies: ['incap_ses', 'visid_incap'] },
  { name: 'datadome', markers: ['captcha-delivery.com', 'datadome'], headers: ['x-datadome', 'x-dd-b'], cookies: ['datadome'] },
  { name: 'perimeterx', markers: ['px-captcha', 'perimeterx', '/px/client/main.min.js'], cookies: ['_px', '_pxhd', '_pxvid'] },
  { name: 'kasada', markers: ['kpsdk', 'ips.js?'], headers: ['x-kpsdk-ct'] },
  { name: 'sucuri', markers: ['sucuri website firewall', 'sucuri_cloudproxy'], headers: ['x-sucuri-id'], servers: ['sucuri/cloudproxy'] },
  { name: 'aws-waf', markers: ['awswaf', 'aws-waf-token'], headers: ['x-amzn-waf-action'] },
  { name: 'shape', markers: ['shape security', 'istlwashere'] },
];

/** Markers of a JavaScript/anti-bot interstitial (the page is a challenge, not content). */
export const CHALLENGE_MARKERS = ['just a moment...', '__cf_chl_', '/cdn-cgi/challenge-platform', 'checking your browser', 'ddos protection by', 'attention required! | cloudflare', 'please wait while we verify', 'pardon our interruption'];

/** Phrases of a block page delivered with HTTP 200 (soft block), lower case. */
export const BLOCK_PHRASES = [
  'access denied',
  'you have been blocked',
  'request blocked',
  'unusual traffic',
  'are you a robot',
  'verify you are human',
  'verify you are a human',
  'bot detected',
  'automated access',
  'blocked by our security',
  'too many requests',
  'rate limit exceeded',
  'your ip has been',
];

/** Markers of a page that only boots a JavaScript app. */
export const SHELL_MARKERS = ['<div id="root"></div>', '<div id="app"></div>', '<div id="__next"></div>', 'you need to enable javascript', 'please enable javascript', 'requires javascript'];

/** Statuses that are an explicit refusal by the site. */
export const BLOCK_STATUSES = [401, 403, 407, 429, 451];

/** Below this many characters of visible text, a page is "small" (a block or shell, not content). */
export const SMALL_PAGE_TEXT = 1500;
export const SHELL_TEXT = 200;
/** A rendered DOM (browser mode) is a shell only when scripts left no visible text at all. */
export const RENDERED_SHELL_TEXT = 1;
