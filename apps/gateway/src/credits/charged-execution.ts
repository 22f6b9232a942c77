import type { ScrapeExecutionFacts } from '@lib/contracts';
import { Injectable, Logger } from '@nestjs/common';
import type { Admission } from '../admission/request-admission';
import { CreditGate } from './credit-gate';

// A hold outlives the longest call: if this gateway dies mid-call, the credits come back on their own.
const HOLD_TTL_SECONDS = 360;

/**
 * Runs billable work the one way: hold the credits before it starts (429 when the month cannot
 * cover them), then charge when the facts say it is billable — recorded once under `chargeKey` —
 * or release them when it is not, or when the work throws. The response headers follow the ledger.
 */
@Injectable()
export class ChargedExecution {
  private readonly logger = new Logger('ChargedExecution');

  constructor(private readonly credits: CreditGate) {}

  async run<T>(admission: Admission, chargeKey: string, creditsToHold: number, work: () => Promise<{ facts: ScrapeExecutionFacts; result: T; details?: Record<string, unknown> }>): Promise<T> {
    const client = admission.client!;
    const hold = await this.credits.hold(client, creditsToHold, HOLD_TTL_SECONDS, admission.requestId);
    try {
      const { facts, result, details } = await work();
      if (facts.billable) {
        admission.quota = await this.credits.charge(client, hold, facts.credits, chargeKey, facts.mode, {
          domain: facts.target_domain,
          status_code: facts.status_code,
          block_reason: facts.block_reason,
          proxy: facts.proxy,
          attempts: facts.attempts,
          ...details,
        });
        admission.creditsCharged = facts.credits;
      } else {
        admission.quota = await this.credits.release(client, hold, admission.requestId);
      }
      return result;
    } catch (error) {
      await this.credits.release(client, hold, admission.requestId).catch((e: unknown) => this.logger.warn(`release after failure: ${String(e)}`));
      throw error;
    }
  }
}
