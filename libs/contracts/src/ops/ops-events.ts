import type { BoundedContext } from '../bounded-contexts';
import type { RunKind } from '../batch/run-kinds';

/**
 * Operational facts for ops tooling (dashboards, alerting, audit), published under one prefix
 * that tooling subscribes to with `ops.>`: `ops.<context>.<event>.v<N>`. Every one is published
 * after the fact is committed (an after-commit hook: a rolled-back change publishes nothing),
 * at most once per fact, fire-and-forget (never on a request's path), as plain JSON (no transport
 * envelope), so `nats sub 'ops.>'` shows exactly these payloads.
 *
 * Like every subject, a released name is never edited: a changed payload gets a `.v2` beside it.
 */
export const OPS_SUBJECT_PREFIX = 'ops';

export const OPS_SUBJECTS = {
  runStarted: 'ops.batch-orchestrator.run-started.v1',
  runCompleted: 'ops.batch-orchestrator.run-completed.v1',
  jobFailed: 'ops.batch-orchestrator.job-failed.v1',
  jobTimedOut: 'ops.batch-orchestrator.job-timed-out.v1',
  webhookDelivered: 'ops.webhook-sender.webhook-delivered.v1',
  webhookFailed: 'ops.webhook-sender.webhook-failed.v1',
  webhookExhausted: 'ops.webhook-sender.webhook-exhausted.v1',
  quotaThresholdReached: 'ops.billing-meter.quota-threshold-reached.v1',
  countryProxyRequested: 'ops.proxy-approvals.country-request-created.v1',
  countryProxyDecided: 'ops.proxy-approvals.country-request-decided.v1',
  browserCrashed: 'ops.scrape-engine.browser-crashed.v1',
  browserRecycled: 'ops.scrape-engine.browser-recycled.v1',
  viabilityCompleted: 'ops.viability-analyzer.analysis-completed.v1',
  monitorTickReported: 'ops.batch-orchestrator.monitor-tick-reported.v1',
  /** `ops.<context>.service-started.v1` for each context: see serviceLifecycleSubject. */
} as const;

export type ServiceLifecycleEvent = 'service-started' | 'service-stopping';

/** `ops.<context>.service-started.v1` / `ops.<context>.service-stopping.v1`. */
export function serviceLifecycleSubject(context: BoundedContext | 'platform', event: ServiceLifecycleEvent): string {
  return `${OPS_SUBJECT_PREFIX}.${context}.${event}.v1`;
}

/** Fields every ops event carries, set by the publisher. */
export interface OpsEventEnvelope {
  /** Unique per fact: tooling deduplicates on it. */
  event_id: string;
  /** The subject without prefix and version, e.g. `batch-orchestrator.run-completed`. */
  event: string;
  /** ISO 8601, when the fact was committed. */
  occurred_at: string;
  /** The context that published it and the process (`<hostname>:<pid>`; the pod name in Kubernetes). */
  source: { service: string; instance: string };
}

/** A run (collection run or batch) started dispatching. */
export class RunStartedEvent {
  run_id: string;
  kind: RunKind;
  client_id: string;
  collection_id: string | null;
  project_id: string | null;
  total_requests: number;
}

/** A run's last job finished (or a cancel ended it): its final counters. */
export class RunCompletedEvent {
  run_id: string;
  kind: RunKind;
  client_id: string;
  collection_id: string | null;
  project_id: string | null;
  /** `completed` for a run that ran out; `cancelled` when a cancel ended it. */
  state: string;
  total_requests: number;
  success_requests: number;
  failed_requests: number;
  timeout_requests: number;
  cancelled_requests: number;
  credits_charged: number;
  /** From the run's creation (a batch's creation, not its `run`) to its completion. */
  since_created_ms: number | null;
}

/**
 * A batch job ended without success, after any retry: `timeout` (job-timed-out), or `failed`
 * (job-failed) — which also covers a page that answered but not usefully (a 404, a block), whose
 * stored status is `completed` with success false (spec 2.13): `job_status` is the stored one.
 */
export class JobFailedEvent {
  job_id: string;
  run_id: string;
  client_id: string;
  project_id: string | null;
  status: 'failed' | 'timeout';
  job_status: 'completed' | 'failed' | 'timeout';
  /** spec 3.2's error type (`blocked`, `network_error`, `timeout`, …); null when the page answered. */
  error_type: string | null;
  block_reason: string | null;
  status_code: number | null;
  credits: number;
}

/** One webhook delivery attempt's outcome. */
export class WebhookAttemptEvent {
  delivery_id: string;
  client_id: string;
  /** The webhook's own event (`run.completed`, `batch.completed`). */
  webhook_event: string;
  run_id: string | null;
  attempt: number;
  /** The receiver's HTTP status; null when no answer came (network error, timeout). */
  status_code: number | null;
  error: string | null;
  /** Failed attempts only: when the next attempt is due (null once exhausted). */
  next_attempt_at: string | null;
}

/** A client's used credits crossed 80 % or 100 % of its monthly limit (once per threshold and month). */
export class QuotaThresholdReachedEvent {
  client_id: string;
  month: string;
  threshold_percent: 80 | 100;
  used: number;
  limit: number;
}

/** A client asked for a country's proxy pool: an administrator must review it. */
export class CountryProxyRequestedEvent {
  /** A request is identified by client and country (one per pair). */
  client_id: string;
  country: string;
  reason: string | null;
  requested_at: string;
}

export class CountryProxyDecidedEvent {
  client_id: string;
  country: string;
  /** `approved` | `denied`. */
  status: string;
  note: string | null;
  decided_by: string | null;
}

/**
 * A browser process ended without the pool closing it (killed or crashed), whatever the pool had
 * planned for it; once per browser. Also for one that ended while starting.
 */
export class BrowserCrashedEvent {
  browser_kind: string;
  pages_in_flight: number;
  /** `signal SIGKILL`, `exit code N`, `disconnected`, or `while starting: …`. */
  reason: string;
}

/**
 * The pool closed a browser of its own accord, once per browser, when it ended: `page_budget`,
 * `hung` or `idle`. The next request of its kind starts another.
 */
export class BrowserRecycledEvent {
  browser_kind: string;
  reason: string;
  pages_served: number;
}

/** A viability test (all its URLs) finished. */
export class ViabilityCompletedEvent {
  test_id: string;
  client_id: string;
  total_urls: number;
  /** URLs per recommended_strategy. */
  strategies: Record<string, number>;
}

/** A monitor's tick was reported (its run completed, its changes read, its webhook written or not). */
export class MonitorTickReportedEvent {
  monitor_id: string;
  tick_id: string;
  client_id: string;
  pages: number;
  success_requests: number;
  failed_requests: number;
  credits_charged: number;
  /** Pages per change status this tick: new, changed, removed (same pages are not counted). */
  changes: Record<'new' | 'changed' | 'removed', number>;
  /** Whether a `monitor.changed` webhook was written for it. */
  webhook: boolean;
}

export class ServiceLifecycleEventPayload {
  /** process.version of the Node.js running it. */
  node_version: string;
  runtime: 'embedded' | 'distributed';
  transport: 'nats' | 'in-process';
  /** service-stopping: the signal or reason. */
  reason: string | null;
}

export type OpsEventMap = {
  [OPS_SUBJECTS.runStarted]: RunStartedEvent;
  [OPS_SUBJECTS.runCompleted]: RunCompletedEvent;
  [OPS_SUBJECTS.jobFailed]: JobFailedEvent;
  [OPS_SUBJECTS.jobTimedOut]: JobFailedEvent;
  [OPS_SUBJECTS.webhookDelivered]: WebhookAttemptEvent;
  [OPS_SUBJECTS.webhookFailed]: WebhookAttemptEvent;
  [OPS_SUBJECTS.webhookExhausted]: WebhookAttemptEvent;
  [OPS_SUBJECTS.quotaThresholdReached]: QuotaThresholdReachedEvent;
  [OPS_SUBJECTS.countryProxyRequested]: CountryProxyRequestedEvent;
  [OPS_SUBJECTS.countryProxyDecided]: CountryProxyDecidedEvent;
  [OPS_SUBJECTS.browserCrashed]: BrowserCrashedEvent;
  [OPS_SUBJECTS.browserRecycled]: BrowserRecycledEvent;
  [OPS_SUBJECTS.viabilityCompleted]: ViabilityCompletedEvent;
  [OPS_SUBJECTS.monitorTickReported]: MonitorTickReportedEvent;
};
export type OpsSubject = keyof OpsEventMap;
