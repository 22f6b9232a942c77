import { CreditSummary, SUBJECTS } from '@lib/contracts';
import { MessageBus } from '@lib/messaging';
import { Controller, Get, Inject } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AdmittedCall, Caller } from '../admission/caller.decorator';
import { Access } from '../admission/route-access';
import { Returns } from '../openapi/operation-contract';
import { CREDIT_SUMMARY_EXAMPLE } from '../openapi/response-examples';
import { CreditLeases } from './credit-leases';

/** GET /v1/credits/summary (spec 4.8). */
@ApiTags('billing')
@ApiBearerAuth()
@Controller('v1/credits')
export class CreditSummaryController {
  constructor(
    @Inject(MessageBus) private readonly bus: MessageBus,
    private readonly leases: CreditLeases,
  ) {}

  @Get('summary')
  @Access('client')
  @ApiOperation({
    summary:
      "This month's credits: limit, used (the ledger: equal to /v1/sync/billing's credits.total), held by work in flight, remaining, resets_at, and used by kind (simple, browser, download, viability) and by project.",
  })
  @Returns(200, CreditSummary, { description: 'The credit summary.', example: CREDIT_SUMMARY_EXAMPLE })
  async summary(@Caller() caller: AdmittedCall): Promise<CreditSummary> {
    const client = caller.client;
    const summary = await this.bus.request(SUBJECTS.billing.creditSummary, {
      client_id: client.id,
      plan: client.plan,
      monthly_credits: client.limits.monthlyCredits,
    });
    // billing-meter counts this replica's credit leases as held in full; the part no request has
    // taken is not in flight (the same correction X-Quota-Used gets).
    const seen = this.leases.visible(client.id, {
      month: summary.month,
      limit: summary.limit,
      used: summary.used + summary.held,
      remaining: null,
      resets_at: summary.resets_at,
      as_of: Date.now(),
    });
    const held = Math.max(0, seen.used - summary.used);
    const remaining = summary.limit === null ? null : Math.max(0, summary.limit - summary.used - held);
    return { ...summary, held, remaining };
  }
}
