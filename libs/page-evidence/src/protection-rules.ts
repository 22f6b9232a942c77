/**
 * What a page reveals about the site's protection, as data: one rule set for the content
 * validator (scrape-engine: is this answer usable?) and the viability analysis (what stands between
 * a client and this page?). The rule version and the human-readable success rules live in
 * @lib/contracts (batch-orchestrator reports them as a run's success_criterion); bump the version
 * there whenever anything here changes meaning.
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
  {
    name: 'cloudflare',
    markers: ['/cdn-cgi/challenge-platform', '__cf_chl_', 'cf-browser-verification'],
    headers: ['cf-ray', 'cf-mitigated'],
    cookies: ['__cf_bm', 'cf_clearance'],
    servers: ['cloudflare'],
  },
  { name: 'akamai', markers: ['_abck', 'akam/13'], cookies: ['_abck', 'ak_bmsc', 'bm_sz'], servers: ['akamaighost', 'akamainetstorage'] },
  { name: 'imperva', markers: ['_incapsula_resource', 'incapsula incident'], headers: ['x-iinfo'], cookies: ['incap_ses', 'visid_incap'] },
  { name: 'datadome', markers: ['captcha-delivery.com', 'datadome'], headers: ['x-datadome', 'x-dd-b'], cookies: ['datadome'] },
  { name: 'perimeterx', markers: ['px-captcha', 'perimeterx', '/px/client/main.min.js'], cookies: ['_px', '_pxhd', '_pxvid'] },
  { name: 'kasada', markers: ['kpsdk', 'ips.js?', '149e9513-01fa-4fb0-aad4-566afd725d1b'], headers: ['x-kpsdk-ct'] },
  { name: 'sucuri', markers: ['sucuri website firewall', 'sucuri_cloudproxy'], headers: ['x-sucuri-id'], servers: ['sucuri/cloudproxy'] },
  { name: 'aws-waf', markers: ['awswaf', 'aws-waf-token'], headers: ['x-amzn-waf-action'], cookies: ['aws-waf-token'] },
  { name: 'shape', markers: ['shape security', 'istlwashere'] },
  {
    name: 'radware',
    markers: ['validate.perfdrive.com', 'perfdrive.com/', 'radware bot manager'],
    cookies: ['__uzdbm', '__uzma', '__uzmb'],
  },
];

/**
 * Signals that a vendor is not just present (serving the site, loading its sensor script) but
 * challenging or refusing this request. Evidence of presence alone never makes a page blocked.
 */
export interface ChallengeSignature {
  name: string;
  /** Lower-case substrings of the body that only a challenge or refusal page carries. */
  markers: string[];
  /** Header name → lower-case value substrings (any) that announce a challenge. */
  headers?: Record<string, string[]>;
}

export const VENDOR_CHALLENGES: ChallengeSignature[] = [
  // Not /cdn-cgi/challenge-platform alone: Cloudflare injects …/scripts/jsd/main.js into ordinary pages.
  {
    name: 'cloudflare',
    markers: [
      '/cdn-cgi/challenge-platform/h/',
      'window._cf_chl_opt',
      '__cf_chl_',
      'cf-browser-verification',
      '<title>just a moment...</title>',
    ],
    headers: { 'cf-mitigated': ['challenge'] },
  },
  {
    name: 'datadome',
    markers: ['geo.captcha-delivery.com', 'ct.captcha-delivery.com', "var dd={'rt':"],
    headers: { 'x-datadome': ['protected'] },
  },
  { name: 'perimeterx', markers: ['px-captcha', '_pxcaptcha', 'press &amp; hold', 'press & hold'] },
  {
    name: 'akamai',
    markers: ['sec-if-cpt-container', '/_sec/cp_challenge/', 'reference&#32;&#35;', "you don't have permission to access"],
  },
  { name: 'imperva', markers: ['_incapsula_resource', 'incapsula incident id', 'request unsuccessful. incapsula'] },
  { name: 'kasada', markers: ['window.kpsdk', 'ips.js?'], headers: { 'x-kpsdk-ct': [''] } },
  {
    name: 'aws-waf',
    markers: ['awswafintegration', 'aws-waf-token', 'challenge.js'],
    headers: { 'x-amzn-waf-action': ['challenge', 'captcha'] },
  },
  { name: 'sucuri', markers: ['sucuri website firewall - access denied', 'sucuri_cloudproxy_js', 'cloudproxy@sucuri.net'] },
  { name: 'radware', markers: ['validate.perfdrive.com', 'radware bot manager captcha'] },
  { name: 'shape', markers: ['istlwashere'] },
];

/**
 * Cloudflare's own refusals (error pages 1006/1007/1008 banned IP, 1010 browser signature,
 * 1012 access denied, 1015 rate limited, 1020 firewall rule): a block, not a challenge.
 */
export const CLOUDFLARE_BLOCK_CODES = ['1006', '1007', '1008', '1010', '1012', '1015', '1020'];
export const CLOUDFLARE_BLOCK_MARKERS = ['sorry, you have been blocked', 'attention required! | cloudflare', 'cf-error-details'];

/** A login or paywall between the client and the content. */
export const LOGIN_WALL = {
  /** Redirect targets (Location) and final URLs that are sign-in pages. */
  paths: /\/(login|log-in|signin|sign-in|sign_in|sso|auth(orize)?|oauth2?|account\/login|session\/new|users\/sign_in)(\/|\?|$|\.)/i,
  /** Body markers of a paywall (lower case). */
  paywall: [
    '"isaccessibleforfree": false',
    '"isaccessibleforfree":false',
    'class="paywall',
    'id="paywall',
    'subscribe to continue reading',
    'subscribe to read',
    'this content is for subscribers',
    'log in to continue',
    'sign in to continue',
  ],
  /** A password field: a login form, when the page has little else to show. */
  passwordField: /<input\b[^>]*type\s*=\s*["']?password/i,
};

/** Markers of a JavaScript/anti-bot interstitial (the page is a challenge, not content). */
export const CHALLENGE_MARKERS = [
  ...new Set([
    'just a moment...',
    '__cf_chl_',
    '/cdn-cgi/challenge-platform/h/',
    'checking your browser',
    'ddos protection by',
    'attention required! | cloudflare',
    'please wait while we verify',
    'pardon our interruption',
    // Every vendor's own challenge markers too: the validator and the viability analysis read one rule set.
    ...VENDOR_CHALLENGES.flatMap((vendor) => vendor.markers),
  ]),
];

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
export const SHELL_MARKERS = [
  '<div id="root"></div>',
  '<div id="app"></div>',
  '<div id="__next"></div>',
  'you need to enable javascript',
  'please enable javascript',
  'requires javascript',
];

/**
 * What a page whose purpose is a challenge says to the person in front of it (lower case). A
 * CAPTCHA widget or a vendor's challenge script on a page that carries its content (a sign-up
 * form, a comment box, a product page's sensor) is not a gate; a page saying one of these, or
 * holding almost nothing else, is.
 */
export const GATE_PHRASES = [
  'verify you are human',
  'verify you are a human',
  'verifying you are human',
  'are you a robot',
  'are you a human',
  'prove you are human',
  'confirm you are human',
  'human verification',
  'security check',
  'checking your browser',
  'checking if the site connection is secure',
  'please wait while we verify',
  'press & hold',
  'press &amp; hold',
  'unusual traffic',
  'complete the captcha',
  'solve the captcha',
  'captcha below',
  'pardon our interruption',
  'just a moment...',
  'one more step',
  'access to this page has been denied',
  'we need to make sure you are not a robot',
];
/** A page with a challenge widget and less readable text than this is nothing but the challenge. */
export const GATE_TEXT = 200;

/** Statuses that are an explicit refusal by the site. */
export const BLOCK_STATUSES = [401, 403, 407, 429, 451];

/** Below this many characters of visible text, a page is "small" (a block or shell, not content). */
export const SMALL_PAGE_TEXT = 1500;
export const SHELL_TEXT = 200;
/** A rendered DOM (browser mode) is a shell only when scripts left no visible text at all. */
export const RENDERED_SHELL_TEXT = 1;
