import { BillableMode, ledgerDetailsOf, ScrapeExecutionFacts, SUBJECTS } from '@lib/contracts';
import { RemoteAppError } from '@lib/errors';
import { MessageBus } from '@lib/messaging';
import { CREDIT_COST } from '@lib/plans';
import { Inject, Injectable, Logger } from '@nestjs/common';
import type { ClaimedUrl } from '../persistence/viability-runs.store';
import type { ProbeAttempt, ProbeLabel, UrlProber } from '../url-analysis/url-prober';

// The engine decides when a scrape has failed (its own budgets are shorter); this only bounds a lost reply.
const ENGINE_TIMEOUT_MS = 300_000;
// A hold outlives the probe: if this process dies mid-probe, the credits come back on their own.
const HOLD_TTL_SECONDS = 600;
// Engine answers that say the request itself is wrong rather than the engine unavailable.
const REFUSALS: Record<string, string> = {
  'target.blocked': 'target_blocked',
  'target.invalid_url': 'target_blocked',
  'scrape.invalid_request': 'invalid_request',
  'request.validation_failed': 'invalid_request',
};

/** Whose credits an analysis spends, and how its probes are named in the ledger. */
export interface ProbeAccount {
  clientId: string;
  monthlyCredits: number | null;
  /** One analysis of one URL: its probes' charge keys and correlation id start with it. */
  analysisKey: string;
  /** Names this attempt's engine requests: an analysis started again gets fresh ones. */
  attempt: number;
  /** Written into every ledger entry of the analysis: which run, or which agent call, it served. */
  origin: { viability_run_id: string } | { discover_request_id: string };
}

/**
 * Probes a URL through scrape-engine over the message bus, each probe charged exactly as a sync
 * scrape: credits held from billing-meter first (refused → `quota_exceeded`, nothing fetched), then
 * charged when the site answered (1 simple, 5 browser) under a key naming the analysis and the
 * probe — so an analysis re-run after a worker died is never charged twice — or released when it
 * did not. Every ledger entry carries the account's details (the run id, or the agent call's).
 */
@Injectable()
export class ChargedEngineProber {
  private readonly logger = new Logger('ChargedEngineProber');

  constructor(@Inject(MessageBus) private readonly bus: MessageBus) {}

  /** A viability run's URL, as the worker claimed it. */
  forClaim(claim: ClaimedUrl): UrlProber {
    return this.for({
      clientId: claim.clientId,
      monthlyCredits: claim.monthlyCredits,
      analysisKey: `viability:${claim.runId}:${claim.position}`,
      attempt: claim.attempt,
      origin: { viability_run_id: claim.runId },
    });
  }

  /** A prober that also tallies what its probes were charged (for an answer that reports it). */
  for(account: ProbeAccount): UrlProber & { creditsCharged(): number } {
    let charged = 0;
    return {
      probe: async (label, request) => {
        const attempt = await this.probe(account, label, request);
        if (attempt.kind === 'answered' && attempt.facts.billable) charged += attempt.facts.credits;
        return attempt;
      },
      creditsCharged: () => charged,
    };
  }

  private async probe(account: ProbeAccount, label: ProbeLabel, request: Record<string, unknown>): Promise<ProbeAttempt> {
    const cost = request.browser === true ? CREDIT_COST.browser_request : CREDIT_COST.simple_request;
    const correlationId = account.analysisKey;
    const hold = await this.bus.request(
      SUBJECTS.billing.creditsReserve,
      { client_id: account.clientId, monthly_credits: account.monthlyCredits, credits: cost, ttl_seconds: HOLD_TTL_SECONDS },
      { correlationId },
    );
    if (!hold.granted || !hold.reservation_id) {
      return {
        kind: 'refused',
        error: 'quota_exceeded',
        message: `the monthly credit quota cannot cover this probe (${cost} credits; ${hold.quota.used} of ${hold.quota.limit} used)`,
      };
    }
    const reservation = { reservation_id: hold.reservation_id, monthly_credits: account.monthlyCredits };
    let facts: ScrapeExecutionFacts;
    let result;
    try {
      const reply = await this.bus.request(
        SUBJECTS.scrape.execute,
        { request_id: `${correlationId}:${label}:${account.attempt}`, client_id: account.clientId, request },
        { correlationId, timeoutMs: ENGINE_TIMEOUT_MS },
      );
      facts = reply.facts;
      result = await this.bus.unpack(reply.result);
    } catch (error) {
      await this.release(reservation, correlationId);
      const refusal = error instanceof RemoteAppError ? REFUSALS[error.code] : undefined;
      if (refusal) return { kind: 'refused', error: refusal, message: error instanceof Error ? error.message : String(error) };
      throw error;
    }
    if (facts.billable) {
      await this.bus.request(
        SUBJECTS.billing.creditsCommit,
        {
          ...reservation,
          credits: facts.credits,
          charge_key: `${account.analysisKey}:${label}`,
          mode: facts.mode as BillableMode,
          details: ledgerDetailsOf(facts, { success: result.guidance.success === true }, { ...account.origin, probe: label }),
        },
        { correlationId },
      );
    } else {
      await this.release(reservation, correlationId);
    }
    return { kind: 'answered', result, facts };
  }

  private async release(reservation: { reservation_id: string; monthly_credits: number | null }, correlationId: string): Promise<void> {
    try {
      await this.bus.request(SUBJECTS.billing.creditsRelease, reservation, { correlationId });
    } catch (error) {
      // The hold expires on its own (HOLD_TTL_SECONDS); the probe's outcome matters more than this release.
      this.logger.warn(`release of ${reservation.reservation_id} failed (${String(error)}); it expires in ${HOLD_TTL_SECONDS} s`);
    }
  }
}
