import type { ScrapeExecutionFacts } from '@lib/contracts';
import { setTimeout as sleep } from 'node:timers/promises';
import { CONTENT_RULES_VERSION } from '@lib/contracts';
import type { ContentVerdict } from '../content-validation/content-validator';
import { proxyLabel, type ProxyRotation, type ProxySettings } from '../proxy-rotation/proxy-rotation';

/** Extra attempts on a block with retry_on_block (spec 2.1). */
export const BLOCK_RETRIES = 3;

/** A failure before the site answered (simple fetch or browser): typed, never charged. */
export interface AttemptFailure extends Error {
  errorType: string;
  retryable: boolean;
}

export interface AttemptsOutcome<T, F> {
  /** The last attempt's answer, or null when it failed before the site answered. */
  answer: T | null;
  verdict: ContentVerdict | null;
  failure: F | null;
  proxyUrl: string | null;
  attempts: number;
}

/**
 * The retry rules both modes share: each attempt takes the next proxy of the rotation; a block
 * (with retry_on_block) is tried again up to BLOCK_RETRIES more times; a retryable failure through a
 * proxy is tried again on the next proxy after the request's backoff. The outcome is the last
 * attempt's own — an earlier blocked answer is forgotten when a later attempt fails.
 */
export async function attemptWithRetries<T, F extends AttemptFailure>(options: {
  proxies: ProxyRotation;
  proxy: ProxySettings;
  retryOnBlock: boolean;
  attempt: (proxyUrl: string | null, attempt: number) => Promise<T>;
  judge: (answer: T) => ContentVerdict;
  isFailure: (error: unknown) => error is F;
  /** Whether this failure came from (or through) a proxy, so another proxy may help. */
  viaProxy?: (proxyUrl: string | null, failure: F) => boolean;
}): Promise<AttemptsOutcome<T, F>> {
  const { proxy } = options;
  let proxyRetriesLeft = proxy.maxRetries;
  let blockRetriesLeft = options.retryOnBlock ? BLOCK_RETRIES : 0;
  const outcome: AttemptsOutcome<T, F> = { answer: null, verdict: null, failure: null, proxyUrl: null, attempts: 0 };
  for (;;) {
    outcome.attempts += 1;
    outcome.proxyUrl = options.proxies.next(proxy.selection);
    try {
      outcome.answer = await options.attempt(outcome.proxyUrl, outcome.attempts);
      outcome.failure = null;
      outcome.verdict = options.judge(outcome.answer);
      if (!outcome.verdict.usable && outcome.verdict.blockReason && blockRetriesLeft > 0) {
        blockRetriesLeft -= 1;
        continue;
      }
      return outcome;
    } catch (error) {
      if (!options.isFailure(error)) throw error;
      outcome.failure = error;
      outcome.answer = null;
      outcome.verdict = null;
      const viaProxy = options.viaProxy ? options.viaProxy(outcome.proxyUrl, error) : outcome.proxyUrl !== null;
      if (error.retryable && viaProxy && proxyRetriesLeft > 0) {
        await sleep(proxy.delayMs * proxy.backoff ** (proxy.maxRetries - proxyRetriesLeft));
        proxyRetriesLeft -= 1;
        continue;
      }
      return outcome;
    }
  }
}

/** What billing and the job listing need to know about one scrape. */
export function executionFacts(
  mode: ScrapeExecutionFacts['mode'],
  credits: number,
  targetDomain: string,
  statusCode: number | null,
  outcome: AttemptsOutcome<unknown, unknown>,
): ScrapeExecutionFacts {
  const { verdict } = outcome;
  return {
    billable: credits > 0,
    credits,
    mode,
    target_domain: targetDomain,
    status_code: statusCode,
    block_reason: verdict?.blockReason ?? null,
    protection_stack: verdict?.protectionStack ?? [],
    rule_hits: verdict?.ruleHits ?? [],
    rules_version: CONTENT_RULES_VERSION,
    proxy: proxyLabel(outcome.proxyUrl),
    attempts: outcome.attempts,
  };
}
