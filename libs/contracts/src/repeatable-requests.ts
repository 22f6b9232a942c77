import { SUBJECTS } from './subjects';
import type { RequestSubject } from './message-map';

/**
 * Requests that are safe to send again (decision 0034), with how long one attempt waits for its
 * reply. A request sent to a process that dies before answering is lost with it; over NATS the
 * caller would wait its whole timeout (RPC_TIMEOUT_MS, 10 s) for a reply that cannot come, then
 * fail. These are asked again after a short wait instead, within the caller's timeout, so a caller
 * reaches a live replica (or the restarted one) in about one attempt's wait:
 * - reads, which change nothing;
 * - commands whose repeat is answered like the first: a job's heartbeat (it renews the same
 *   lease), a crawl run's open (keyed by the crawl id), its page appends (keyed by each page's job
 *   id) and its seal (conditional on the run's state).
 * An attempt's wait is a few times what the handler takes on a loaded machine: a slow but live
 * handler must not be abandoned and asked again (its work would be done twice for nothing).
 * Not here: anything that fetches a target (a scrape, a map, an analysis), takes or charges
 * credits, creates an object under a new id or answers its repeat differently (a transition: the
 * second pause is a 409); health queries, which must report a dead context at once.
 */
export const REPEATABLE_REQUESTS: Partial<Record<RequestSubject, { attemptMs: number }>> = {
  [SUBJECTS.billing.quotaQuery]: { attemptMs: 2000 },
  [SUBJECTS.billing.creditSummary]: { attemptMs: 3000 },
  [SUBJECTS.collections.get]: { attemptMs: 3000 },
  [SUBJECTS.collections.list]: { attemptMs: 3000 },
  [SUBJECTS.runs.get]: { attemptMs: 3000 },
  [SUBJECTS.runs.list]: { attemptMs: 3000 },
  [SUBJECTS.projects.get]: { attemptMs: 3000 },
  [SUBJECTS.projects.list]: { attemptMs: 3000 },
  [SUBJECTS.batches.get]: { attemptMs: 3000 },
  [SUBJECTS.jobs.heartbeat]: { attemptMs: 2000 },
  [SUBJECTS.jobs.list]: { attemptMs: 3000 },
  [SUBJECTS.jobs.result]: { attemptMs: 3000 },
  [SUBJECTS.jobs.listForClient]: { attemptMs: 3000 },
  [SUBJECTS.jobs.data]: { attemptMs: 3000 },
  [SUBJECTS.proxies.check]: { attemptMs: 2000 },
  [SUBJECTS.proxies.countries]: { attemptMs: 2000 },
  [SUBJECTS.proxies.status]: { attemptMs: 2000 },
  [SUBJECTS.viability.get]: { attemptMs: 3000 },
  [SUBJECTS.viability.list]: { attemptMs: 3000 },
  [SUBJECTS.discovery.crawlGet]: { attemptMs: 3000 },
  [SUBJECTS.crawlRuns.open]: { attemptMs: 3000 },
  [SUBJECTS.crawlRuns.append]: { attemptMs: 3000 },
  [SUBJECTS.crawlRuns.outcomes]: { attemptMs: 2000 },
  [SUBJECTS.crawlRuns.seal]: { attemptMs: 3000 },
  [SUBJECTS.crawlRuns.get]: { attemptMs: 2000 },
  // The page cache's lookup is a read; its store an upsert under the request's key and its confirm
  // a timestamp: both leave what their first attempt left.
  [SUBJECTS.pageCache.lookup]: { attemptMs: 2000 },
  [SUBJECTS.pageCache.store]: { attemptMs: 3000 },
  [SUBJECTS.pageCache.confirm]: { attemptMs: 2000 },
  // A monitor's reads, and a page version's record (keyed by its job: a repeat answers the first's comparison).
  [SUBJECTS.monitors.get]: { attemptMs: 3000 },
  [SUBJECTS.monitors.list]: { attemptMs: 3000 },
  [SUBJECTS.monitors.ticks]: { attemptMs: 3000 },
  [SUBJECTS.pageVersions.record]: { attemptMs: 3000 },
  [SUBJECTS.pageVersions.changes]: { attemptMs: 3000 },
  [SUBJECTS.pageVersions.changesOfTick]: { attemptMs: 3000 },
};
