import type { ScrapeExecutionFacts, ScrapeResultBody } from '@lib/contracts';

/** Which probe of a URL this is; also the last part of its charge key. */
export type ProbeLabel = 'simple_request' | 'extract_html' | 'browser' | `api_replay_${number}`;

/** What one probe got: the scrape engine's answer, or why it could not run. */
export type ProbeAttempt =
  | { kind: 'answered'; result: ScrapeResultBody; facts: ScrapeExecutionFacts }
  /** `error`: target_blocked (the SSRF guard, with its reason), quota_exceeded, invalid_request. Never charged. */
  | { kind: 'refused'; error: string; message: string };

/**
 * Runs one scrape request (spec 2.1 body) on a client's behalf, charged as a sync scrape would be:
 * the port the analysis probes a URL through. Infrastructure failures (the engine unreachable) throw,
 * so the URL goes back to the queue instead of being judged on an outage.
 */
export interface UrlProber {
  probe(label: ProbeLabel, request: Record<string, unknown>): Promise<ProbeAttempt>;
}
