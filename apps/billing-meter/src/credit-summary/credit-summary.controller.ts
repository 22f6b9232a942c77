import { CreditSummary, CreditSummaryQuery, SUBJECTS } from '@lib/contracts';
import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { CreditSummaryReport } from './credit-summary';

/** Message adapter of the credit summary (spec 4.8). */
@Controller()
export class CreditSummaryController {
  constructor(private readonly report: CreditSummaryReport) {}

  @MessagePattern(SUBJECTS.billing.creditSummary)
  summary(@Payload() query: CreditSummaryQuery): Promise<CreditSummary> {
    return this.report.summary(query);
  }
}
