import {
  BLOCK_PHRASES,
  BLOCK_STATUSES,
  CAPTCHA_PROVIDERS,
  CHALLENGE_MARKERS,
  CONTENT_RULES_VERSION,
  PROTECTION_PROVIDERS,
  type ContentLocation,
  gateEvidenceOf,
  locateContent,
  SHELL_TEXT,
  RENDERED_SHELL_TEXT,
  SMALL_PAGE_TEXT,
  markerLookupOf,
  matchSignatures,
  type ObservedPage,
  titleOf,
  visibleTextLengthOf,
  visibleTextOf,
  withNoscriptAsMarkup,
} from '@lib/page-evidence';

export type BlockReason = 'captcha' | 'cloudflare_challenge' | 'challenge' | 'hard_block' | 'soft_block' | 'empty_shell';

/** An answer as the shared rules read it (status, headers, decoded body), with what validation adds. */
export interface FetchedContent extends ObservedPage {
  contentType: string | null;
  /** The body is a browser's DOM after its scripts ran: short is then not a shell waiting for them. */
  rendered?: boolean;
}

export interface ContentVerdict {
  rulesVersion: string;
  /** Target 2xx and no block signal: the content is usable. */
  usable: boolean;
  blockReason: BlockReason | null;
  captchaProviders: string[];
  protectionStack: string[];
  potentiallyBlockedByCaptcha: boolean;
  /** Every rule that fired, for diagnostics (job listings' rule_hits). */
  ruleHits: string[];
  /** Readable characters of the page: its visible text, and its noscript content where that is how it serves clients without JavaScript. */
  visibleTextLength: number;
  /** Framework boot data holding prose (unrendered pages with little readable text only): where a shell's text is. */
  embeddedData: Array<{ source: string; text: number }>;
}

/**
 * Classifies a response: CAPTCHA (provider named), anti-bot challenge, hard block (403/429…),
 * soft block (a block page with 200), empty JavaScript shell — or usable content. Pure: the same
 * response always gets the same verdict under one rules version. Judged by evidence: a widget is
 * a gate only on a page that is the challenge, and a short page is a shell only where something
 * shows scripts build it; text a client without JavaScript is served (noscript) is content.
 */
export class ContentValidator {
  validate(content: FetchedContent): ContentVerdict {
    const hits: string[] = [];
    const html = content.body && isMarkup(content.contentType) ? content.body : null;
    const lower = html ? html.toLowerCase() : '';
    // Runs on every response: the text is only measured (its block phrases are read on a small
    // page only), and the markers are looked up through one scan of the page.
    const location = html && !content.rendered ? locateContent(html) : null;
    if (location?.noscriptIsContent) hits.push(`content:noscript-${location.noscriptText}`);
    const readable = location ? location.readableText : html ? visibleTextLengthOf(html) : 0;
    const title = html ? titleOf(html) : '';
    const small = html !== null && readable < SMALL_PAGE_TEXT;
    let smallText: string | null = null;
    const readableLowerText = () =>
      (smallText ??= html ? visibleTextOf(location?.noscriptIsContent ? withNoscriptAsMarkup(html) : html).toLowerCase() : '');
    const contains = markerLookupOf(lower);

    const captchaProviders = matchSignatures(CAPTCHA_PROVIDERS, contains, content.headers, hits, 'captcha');
    const protectionStack = matchSignatures(PROTECTION_PROVIDERS, contains, content.headers, hits, 'protection');
    const status = content.statusCode;
    const blockedStatus = BLOCK_STATUSES.includes(status);
    if (blockedStatus) hits.push(`status:${status}`);

    const challengeMarkers = CHALLENGE_MARKERS.filter((m) => contains(m) || title === m);
    challengeMarkers.forEach((m) => hits.push(`challenge:${m}`));
    // A widget or a sensor beside the page's content is not a gate: the page must be the challenge.
    const gate =
      html !== null && (captchaProviders.length > 0 || challengeMarkers.length > 0)
        ? gateEvidenceOf({ statusCode: status, title, readableText: readable, smallText: readableLowerText })
        : blockedStatus
          ? `status:${status}`
          : null;
    if (gate && (captchaProviders.length > 0 || challengeMarkers.length > 0)) hits.push(`gate:${gate}`);

    let blockReason: BlockReason | null = null;
    if (captchaProviders.length > 0 && gate) blockReason = 'captcha';
    else if (challengeMarkers.length > 0 && (gate || status === 503)) {
      blockReason = protectionStack.includes('cloudflare') ? 'cloudflare_challenge' : 'challenge';
    } else if (blockedStatus) blockReason = 'hard_block';
    else if (status >= 200 && status < 300 && html !== null) {
      const smallLower = small ? readableLowerText() : '';
      const phrases = BLOCK_PHRASES.filter((p) => (small && smallLower.includes(p)) || title.includes(p));
      phrases.forEach((p) => hits.push(`block-phrase:${p}`));
      if (phrases.length > 0) blockReason = 'soft_block';
      else {
        const shell = content.rendered ? (readable < RENDERED_SHELL_TEXT ? [`visible-text-${readable}`] : []) : shellEvidenceOf(location!);
        if (shell.length > 0) {
          shell.forEach((evidence) => hits.push(`shell:${evidence}`));
          blockReason = 'empty_shell';
        }
      }
    }
    if (blockReason) hits.push(`verdict:${blockReason}`);

    return {
      rulesVersion: CONTENT_RULES_VERSION,
      usable: status >= 200 && status < 300 && blockReason === null,
      blockReason,
      captchaProviders,
      protectionStack,
      potentiallyBlockedByCaptcha: blockReason === 'captcha' || (captchaProviders.length > 0 && small),
      ruleHits: hits,
      visibleTextLength: readable,
      embeddedData: location?.embeddedData.filter((d) => d.text > 0) ?? [],
    };
  }
}

// Script weight of one loaded script, for the weight rule (its size is not known without fetching it).
const EXTERNAL_SCRIPT_WEIGHT = 5000;
// Below this, a page has nothing to read: any script on it is what would produce the content.
const NO_TEXT = 20;
// Scripts this heavy, and this many times the page's text, build the page rather than decorate it.
const HEAVY_SCRIPTS = 20_000;
const SCRIPTS_PER_TEXT = 100;

/**
 * Why an unrendered page is an empty JavaScript shell, or nothing when it is not: only a page with
 * little readable text (SHELL_TEXT) qualifies, and then only on evidence that scripts build it — an
 * empty application root, a prompt to enable JavaScript, boot data holding the text the markup
 * lacks, no text at all beside a script, or scripts outweighing the text a hundredfold. A small
 * page with a list and an inert script is a small page.
 */
function shellEvidenceOf(location: ContentLocation): string[] {
  const readable = location.readableText;
  if (readable >= SHELL_TEXT) return [];
  const evidence: string[] = [];
  if (location.emptyAppRoot) evidence.push('empty-app-root');
  if (location.javascriptPrompt) evidence.push('javascript-prompt');
  for (const data of location.embeddedData)
    if (data.text >= SHELL_TEXT && data.text > readable) evidence.push(`embedded-data:${data.source}:${data.text}`);
  const scripts = location.inlineScriptChars + EXTERNAL_SCRIPT_WEIGHT * location.externalScripts;
  if (readable < NO_TEXT && scripts > 0) evidence.push(`no-text:${readable}`);
  else if (scripts >= HEAVY_SCRIPTS && scripts >= SCRIPTS_PER_TEXT * readable) evidence.push(`script-weight:${scripts}`);
  if (evidence.length > 0) evidence.push(`visible-text-${readable}`);
  return evidence;
}

function isMarkup(contentType: string | null): boolean {
  return contentType === null || /html|xml|text\/plain/i.test(contentType);
}
