import {
  BillingQuery,
  BillingReply,
  ClientMetricsQuery,
  ClientMetricsReply,
  PlatformMetricsQuery,
  PlatformMetricsReply,
  SUBJECTS,
} from '@lib/contracts';
import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { UsageReports } from './usage-reports';

/** Message adapter for the usage reports (spec 2.17, 4.2). */
@Controller()
export class UsageReportsController {
  constructor(private readonly reports: UsageReports) {}

  @MessagePattern(SUBJECTS.billing.billing)
  billing(@Payload() query: BillingQuery): Promise<BillingReply> {
    return this.reports.billing(query);
  }

  @MessagePattern(SUBJECTS.billing.clientMetrics)
  clientMetrics(@Payload() query: ClientMetricsQuery): Promise<ClientMetricsReply> {
    return this.reports.clientMetrics(query);
  }

  @MessagePattern(SUBJECTS.billing.platformMetrics)
  platformMetrics(@Payload() query: PlatformMetricsQuery): Promise<PlatformMetricsReply> {
    return this.reports.platformMetrics(query);
  }
}
