import { BillingQuery, BillingReply, ClientMetricsQuery, PlatformMetricsQuery, SUBJECTS } from '@lib/contracts';
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
  clientMetrics(@Payload() query: ClientMetricsQuery): Promise<Record<string, unknown>> {
    return this.reports.clientMetrics(query);
  }

  @MessagePattern(SUBJECTS.billing.platformMetrics)
  platformMetrics(@Payload() query: PlatformMetricsQuery): Promise<Record<string, unknown>> {
    return this.reports.platformMetrics(query);
  }
}
