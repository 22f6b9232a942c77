import {
  BLOCK_PHRASES,
  BLOCK_STATUSES,
  CAPTCHA_PROVIDERS,
  CHALLENGE_MARKERS,
  CONTENT_RULES_VERSION,
  PROTECTION_PROVIDERS,
  SHELL_MARKERS,
  SHELL_TEXT,
  RENDERED_SHELL_TEXT,
  SMALL_PAGE_TEXT,
  markerLookupOf,
  matchSignatures,
  type ObservedPage,
  titleOf,
  visibleTextLengthOf,
  visibleTextOf,
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
  /** Visible characters of the page (scripts and styles removed). */
  visibleTextLength: number;
}

/**
 * Classifies a response: CAPTCHA (provider named), anti-bot challenge, hard block (403/429…),
 * soft block (a block page with 200), empty JavaScript shell — or usable content. Pure: the same
 * response always gets the same verdict under one rules version.
 */
export class ContentValidator {
  validate(content: FetchedContent): ContentVerdict {
    const hits: string[] = [];
    const html = content.body && isMarkup(content.contentType) ? content.body : null;
    const lower = html ? html.toLowerCase() : '';
    // Runs on every response: the visible text is only measured, and only built for a small page
    // (its block phrases); the markers are looked up through one scan of the page.
    const visibleLength = html ? visibleTextLengthOf(html) : 0;
    const title = html ? titleOf(html) : '';
    const small = html !== null && visibleLength < SMALL_PAGE_TEXT;
    const contains = markerLookupOf(lower);

    const captchaProviders = matchSignatures(CAPTCHA_PROVIDERS, contains, content.headers, hits, 'captcha');
    const protectionStack = matchSignatures(PROTECTION_PROVIDERS, contains, content.headers, hits, 'protection');
    const status = content.statusCode;
    const blockedStatus = BLOCK_STATUSES.includes(status);
    if (blockedStatus) hits.push(`status:${status}`);

    const challengeMarkers = CHALLENGE_MARKERS.filter((m) => contains(m) || title === m);
    challengeMarkers.forEach((m) => hits.push(`challenge:${m}`));
    const captchaTitle = /captcha|are you a robot|verify you are human|security check/.test(title);
    if (captchaTitle) hits.push(`title:${title.slice(0, 60)}`);

    let blockReason: BlockReason | null = null;
    if (captchaProviders.length > 0 && (small || blockedStatus || captchaTitle)) blockReason = 'captcha';
    else if (challengeMarkers.length > 0 && (small || blockedStatus || status === 503)) {
      blockReason = protectionStack.includes('cloudflare') ? 'cloudflare_challenge' : 'challenge';
    } else if (blockedStatus) blockReason = 'hard_block';
    else if (status >= 200 && status < 300 && html !== null) {
      const smallText = small ? visibleTextOf(html).toLowerCase() : '';
      const phrases = BLOCK_PHRASES.filter((p) => (small && smallText.includes(p)) || title.includes(p));
      phrases.forEach((p) => hits.push(`block-phrase:${p}`));
      if (phrases.length > 0) blockReason = 'soft_block';
      else if (
        visibleLength < (content.rendered ? RENDERED_SHELL_TEXT : SHELL_TEXT) &&
        (SHELL_MARKERS.some(contains) || /<script[\s>]/i.test(html))
      ) {
        hits.push(`shell:visible-text-${visibleLength}`);
        blockReason = 'empty_shell';
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
      visibleTextLength: visibleLength,
    };
  }
}

function isMarkup(contentType: string | null): boolean {
  return contentType === null || /html|xml|text\/plain/i.test(contentType);
}
