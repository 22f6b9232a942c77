import { ledgerDetailsOf, type ScrapeExecutionFacts } from '@lib/contracts';
import { Injectable, Logger } from '@nestjs/common';
import type { AdmittedCall } from '../admission/caller.decorator';
import { CreditGate } from './credit-gate';

/**
 * Runs billable work the one way: hold the credits before it starts (429 when the month cannot
 * cover them), then charge when the facts say it is billable — recorded once, under a charge key
 * made of `kind` and the hold's own id, before the response leaves — or release them when it is
 * not, or when the work throws. The response headers follow the ledger.
 *
 * The key is never made from anything the client sends: a client-chosen X-Request-Id repeated on
 * every call would otherwise make every call after the first an already-recorded (free) charge.
 */
@Injectable()
export class ChargedExecution {
  private readonly logger = new Logger('ChargedExecution');

  constructor(private readonly credits: CreditGate) {}

  async run<T>(
    admission: AdmittedCall,
    kind: string,
    creditsToHold: number,
    work: () => Promise<{ facts: ScrapeExecutionFacts; result: T; outcome: { success: boolean; executionMs?: number } }>,
  ): Promise<T> {
    const client = admission.client;
    // Body parsing, validation and routing end where the charged work begins.
    admission.timings.mark('validation');
    const hold = await this.credits.hold(client, creditsToHold, admission.requestId);
    admission.timings.mark('hold');
    let outcome: Awaited<ReturnType<typeof work>>;
    try {
      outcome = await work();
      admission.timings.mark('bus');
      // The engine's own time, as it reports it, out of the round trip: what is left is the bus both ways.
      admission.timings.split('bus', 'engine', outcome.outcome.executionMs ?? 0);
    } catch (error) {
      this.credits.release(hold);
      await this.refreshQuota(admission);
      throw error;
    }
    const { facts, result } = outcome;
    if (facts.billable) {
      const details = ledgerDetailsOf(facts, outcome.outcome, { request_id: admission.requestId });
      admission.quota = await this.credits.charge(client, hold, facts.credits, `${kind}:${hold.reservationId}`, facts.mode, details);
      admission.creditsCharged = facts.credits;
      admission.timings.mark('charge');
    } else {
      this.credits.release(hold);
      await this.refreshQuota(admission);
      admission.timings.mark('charge');
    }
    return result;
  }

  /** Work that costs nothing (a page cache hit): no hold, no charge; the quota headers are the month's as it stands. */
  async free(admission: AdmittedCall): Promise<void> {
    admission.creditsCharged = 0;
    await this.refreshQuota(admission);
    admission.timings.mark('charge');
  }

  /** The quota headers after a release: from the cache; a failed lookup keeps the admission's figures. */
  private async refreshQuota(admission: AdmittedCall): Promise<void> {
    try {
      admission.quota = await this.credits.quotaOf(admission.client, admission.requestId);
    } catch (error) {
      this.logger.warn(`quota lookup after a release failed: ${String(error)}`);
    }
  }
}
