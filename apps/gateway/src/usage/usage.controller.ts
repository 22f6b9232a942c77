import { BillingReply, ClientMetricsReply, PLATFORM_METRICS, PlatformMetricsReply, PlatformMetric, SUBJECTS } from '@lib/contracts';
import { AdminOnlyError } from '@lib/errors';
import { MessageBus } from '@lib/messaging';
import { CLOCK, Clock } from '@lib/runtime';
import { Controller, Get, Inject, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AdmittedCall, Caller } from '../admission/caller.decorator';
import { Access } from '../admission/route-access';
import type { AuthenticatedClient } from '../clients/client-directory';
import { Fails, Returns, ValidationStatus } from '../openapi/operation-contract';
import { reportPeriodOf } from './report-period';
import { BillingQueryDto, ClientMetricsQueryDto, PlatformMetricsQueryDto } from './usage.dto';

/** Billing and usage metrics (spec 2.17, 4.2), read from the credit ledger by billing-meter. */
@ApiTags('billing')
@ApiBearerAuth()
@Controller('v1/sync')
export class UsageController {
  constructor(
    @Inject(MessageBus) private readonly bus: MessageBus,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  @Get('billing')
  @Access('client')
  @ApiOperation({
    summary:
      'Monthly billing (spec 2.17): per client simple/browser success, failed and totals, credits {simple, browser, total}, and by_url per domain with detail=urls. Downloads count as simple requests; uncharged failures are not billed and not counted.',
  })
  @Returns(200, BillingReply, { description: "The month's billing." })
  @ValidationStatus(400)
  @Fails('auth.admin_only')
  billing(@Query() query: BillingQueryDto, @Caller() caller: AdmittedCall): Promise<BillingReply> {
    const client = caller.client;
    const month = query.month ?? this.clock.now().toISOString().slice(0, 7);
    return this.bus.request(SUBJECTS.billing.billing, {
      client_id: this.scopeOf(client, query.client, true),
      month,
      by_url: query.detail === 'urls',
    });
  }

  @Get('client-metrics')
  @Access('client')
  @ApiOperation({
    summary: "A client's usage for a day, a range A:B or a month (spec 2.17).",
    description:
      'Response: {client_id, date: {from, to}, totals, scrape_type: {simple, browser}, url?: {<domain>: cell} (detail=urls), hourly?: {<YYYY-MM-DD>: [24 × cell with hour]} (hourly=true), daily?: {<YYYY-MM-DD>: {simple, browser}} (daily=true)}, ' +
      'where a cell is {requests, success, failed, credits, avg_execution_ms}. Own data only; administrators may name any client.',
  })
  @Returns(200, ClientMetricsReply, { description: 'The usage.' })
  @ValidationStatus(400)
  @Fails('auth.admin_only', 'request.invalid')
  clientMetrics(@Query() query: ClientMetricsQueryDto, @Caller() caller: AdmittedCall): Promise<ClientMetricsReply> {
    const client = caller.client;
    const period = reportPeriodOf(query.date, { allowMonth: true }, this.clock.now());
    return this.bus.request(SUBJECTS.billing.clientMetrics, {
      client_id: this.scopeOf(client, query.client, false)!,
      ...period,
      hourly: query.hourly ?? false,
      daily: query.daily ?? false,
      by_url: query.detail === 'urls',
    });
  }

  @Get('metrics')
  @Access('admin')
  @ApiOperation({
    summary:
      'Platform-wide statistics (administrators only): url, proxy, api_codes, page_codes, exe_time (count, avg, min, max, p50, p90, p95, p99 in ms), scrape_type; one metric or all.',
  })
  @Returns(200, PlatformMetricsReply, { description: 'The statistics asked for.' })
  @ValidationStatus(400)
  @Fails('request.invalid')
  metrics(@Query() query: PlatformMetricsQueryDto): Promise<PlatformMetricsReply> {
    const period = reportPeriodOf(query.date, { allowMonth: false }, this.clock.now());
    const metrics: PlatformMetric[] = query.metric ? [query.metric as PlatformMetric] : [...PLATFORM_METRICS];
    return this.bus.request(SUBJECTS.billing.platformMetrics, { ...period, metrics });
  }

  /** Ordinary clients see themselves only; an administrator may name anyone (billing: or nobody = all clients). */
  private scopeOf(client: AuthenticatedClient, named: string | undefined, allowAll: boolean): string | undefined {
    if (client.isAdmin) return named ?? (allowAll ? undefined : client.id);
    if (named !== undefined && named !== client.id)
      throw new AdminOnlyError(`Only an administrator may read another client's usage; omit client or pass your own id (${client.id}).`);
    return client.id;
  }
}
