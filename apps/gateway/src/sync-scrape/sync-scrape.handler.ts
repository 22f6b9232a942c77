import { ScrapeRequest, ScrapeResultBody, SUBJECTS } from '@lib/contracts';
import { MessageBus } from '@lib/messaging';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { instanceToPlain } from 'class-transformer';
import type { Admission } from '../admission/request-admission';
import { CreditGate } from '../credits/credit-gate';
import { BrowserModeUnavailableError, CountryProxyNotApprovedError } from '../gateway.errors';

// Longer than the engine's own budget (30 s per attempt, retries with backoff), so the engine,
// not the transport, decides when a scrape has failed.
const SCRAPE_RPC_TIMEOUT_MS = 180_000;
// A hold outlives the RPC: if this gateway dies mid-scrape, the credits come back on their own.
const HOLD_TTL_SECONDS = 240;

/**
 * POST /v1/sync/scrape: hold the credit before any work, run the scrape in scrape-engine, then
 * charge it when the site answered (blocks included) or release it on an infrastructure failure.
 */
@Injectable()
export class SyncScrapeHandler {
  private readonly logger = new Logger('SyncScrapeHandler');

  constructor(
    @Inject(MessageBus) private readonly bus: MessageBus,
    private readonly credits: CreditGate,
  ) {}

  async scrape(request: ScrapeRequest, admission: Admission): Promise<ScrapeResultBody> {
    const client = admission.client!;
    if (request.browser) throw new BrowserModeUnavailableError('Browser mode (browser=true) is not available on this deployment yet; send the request without browser.');
    const country = countryOf(request.use_proxy);
    if (country) {
      throw new CountryProxyNotApprovedError(`The ${country} proxy pool is not approved for this client. Country proxies need an administrator's approval (spec 3.5); use "any" meanwhile.`);
    }
    const hold = await this.credits.hold(client, 1, HOLD_TTL_SECONDS, admission.requestId);
    try {
      const reply = await this.bus.request(
        SUBJECTS.scrape.execute,
        { request_id: admission.requestId, client_id: client.id, request: instanceToPlain(request) },
        { correlationId: admission.requestId, timeoutMs: SCRAPE_RPC_TIMEOUT_MS },
      );
      const result = await this.bus.unpack(reply.result);
      const { facts } = reply;
      if (facts.billable) {
        admission.quota = await this.credits.charge(client, hold, facts.credits, `sync-scrape:${admission.requestId}`, facts.mode, {
          domain: facts.target_domain,
          status_code: facts.status_code,
          block_reason: facts.block_reason,
          proxy: facts.proxy,
          attempts: facts.attempts,
          execution_ms: result.timings.total_ms,
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

function countryOf(useProxy: ScrapeRequest['use_proxy']): string | null {
  const name = typeof useProxy === 'string' ? useProxy : useProxy && typeof useProxy === 'object' ? useProxy.proxy : null;
  return name && name !== 'any' ? name.toUpperCase() : null;
}
