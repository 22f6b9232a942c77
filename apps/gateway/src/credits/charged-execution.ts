import { ledgerDetailsOf, type ScrapeExecutionFacts } from '@lib/contracts';
import { Injectable, Logger } from '@nestjs/common';
import type { AdmittedCall } from '../admission/caller.decorator';
import { CreditGate, CreditHold } from './credit-gate';

// A hold outlives the longest call: if this gateway dies mid-call, the credits come back on their own.
const HOLD_TTL_SECONDS = 360;
const RELEASE_RETRY_DELAYS_MS = [1000, 2000, 4000, 8000, 16_000];

/**
 * Runs billable work the one way: hold the credits before it starts (429 when the month cannot
 * cover them), then charge when the facts say it is billable — recorded once, under a charge key
 * made of `kind` and the hold's own id — or release them when it is not, or when the work throws.
 * The response headers follow the ledger.
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
    const hold = await this.credits.hold(client, creditsToHold, HOLD_TTL_SECONDS, admission.requestId);
    try {
      const { facts, result, outcome } = await work();
      if (facts.billable) {
        const details = ledgerDetailsOf(facts, outcome, { request_id: admission.requestId });
        admission.quota = await this.credits.charge(client, hold, facts.credits, `${kind}:${hold.reservationId}`, facts.mode, details);
        admission.creditsCharged = facts.credits;
      } else {
        admission.quota = await this.credits.release(client, hold, admission.requestId);
      }
      return result;
    } catch (error) {
      await this.releaseNowOrSoon(client, hold, admission.requestId);
      throw error;
    }
  }

  /**
   * A failed call's hold goes back at once. If billing-meter cannot be reached right now (it is
   * restarting), the release is retried in the background (1, 2, 4, 8, 16 s) rather than left to
   * the hold's expiry: the client's remaining credits are right again within seconds.
   */
  private async releaseNowOrSoon(client: Parameters<CreditGate['release']>[0], hold: CreditHold, requestId: string): Promise<void> {
    const attempt = () => this.credits.release(client, hold, requestId);
    try {
      await attempt();
    } catch (first) {
      this.logger.warn(`release of hold ${hold.reservationId} failed (${String(first)}); retrying in the background`);
      void (async () => {
        for (const delayMs of RELEASE_RETRY_DELAYS_MS) {
          await new Promise((r) => setTimeout(r, delayMs).unref());
          try {
            await attempt();
            return;
          } catch {
            // next delay
          }
        }
        this.logger.warn(`release of hold ${hold.reservationId} kept failing; it expires on its own after ${HOLD_TTL_SECONDS} s`);
      })();
    }
  }
}
