/** The part of the engine's ScrapeExecutionFacts a ledger entry keeps (named here to keep billing free of scrape imports). */
export interface ChargedFacts {
  target_domain: string;
  status_code: number | null;
  block_reason: string | null;
  proxy: string | null;
  attempts: number;
}

/** Which call a ledger entry charged: exactly one of these names it. */
export type LedgerOrigin =
  /** A sync scrape or download, by the request's correlation id. */
  | { request_id: string }
  /** A batch job of a run. */
  | { run_id: string; job_id: string }
  /** One probe of a viability run's URL. */
  | { viability_run_id: string; probe: string }
  /** One probe of the agent endpoint's discover. */
  | { discover_request_id: string; probe: string };

/**
 * What a ledger entry records about the call it charged, written by gateway, batch-orchestrator and
 * viability-analyzer alike and read by billing-meter's usage reports (domain, proxy, status_code,
 * execution_ms, success).
 */
export type LedgerEntryDetails = LedgerOrigin & ChargeDetails;

/** What a ledger entry records besides its origin. */
export interface ChargeDetails {
  domain: string;
  status_code: number | null;
  block_reason: string | null;
  proxy: string | null;
  attempts: number;
  /**
   * The one meaning of "success" the reports count: usable content came back (the scrape's
   * guidance.success; for a download, a 2xx answer).
   */
  success: boolean;
  execution_ms?: number;
}

/** The details of a charge, from the engine's facts, what the call achieved and where it came from. */
export function ledgerDetailsOf(
  facts: ChargedFacts,
  outcome: { success: boolean; executionMs?: number },
  origin: LedgerOrigin,
): LedgerEntryDetails {
  return { ...origin, ...chargeDetailsOf(facts, outcome) };
}

/** The details of a charge without its origin. */
export function chargeDetailsOf(facts: ChargedFacts, outcome: { success: boolean; executionMs?: number }): ChargeDetails {
  return {
    domain: facts.target_domain,
    status_code: facts.status_code,
    block_reason: facts.block_reason,
    proxy: facts.proxy,
    attempts: facts.attempts,
    success: outcome.success,
    ...(outcome.executionMs !== undefined ? { execution_ms: Math.round(outcome.executionMs) } : {}),
  };
}
