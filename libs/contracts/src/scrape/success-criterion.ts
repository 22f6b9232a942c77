/**
 * The success classification of spec 2.13, shared by scrape-engine (which applies it) and
 * batch-orchestrator (which reports it as a run's success_criterion). Bump the version whenever
 * a rule or a signature of the content validator changes meaning, so clients can detect it.
 */
export const CONTENT_RULES_VERSION = 'content-success/2026-11-27.1';

/** Human-readable predicates; a job is a success only when all hold. */
export const SUCCESS_RULES = [
  'the worker completed the fetch',
  'the target answered HTTP 2xx',
  'no CAPTCHA, anti-bot challenge or block page was detected (a page whose purpose is the challenge, not a widget beside content)',
  'an HTML page carries readable content, in its markup or in the noscript blocks it serves clients without JavaScript (not an empty JavaScript shell)',
] as const;
