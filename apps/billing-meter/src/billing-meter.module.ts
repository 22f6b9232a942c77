import { createHealthController } from '@lib/runtime';
import { Module } from '@nestjs/common';
import { ChargeGroupCommit } from './credit-ledger/charge-group-commit';
import { CreditLedger } from './credit-ledger/credit-ledger';
import { CreditLedgerController } from './credit-ledger/credit-ledger.controller';
import { QuotaChangePublisher } from './credit-ledger/quota-change.publisher';
import { CreditSummaryReport } from './credit-summary/credit-summary';
import { CreditSummaryController } from './credit-summary/credit-summary.controller';
import { UsageReports } from './usage-reports/usage-reports';
import { UsageReportsController } from './usage-reports/usage-reports.controller';
import { LedgerReportStore } from './persistence/ledger-reports.store';

/** billing-meter: the credit ledger (quota, reservations, charges) the usage reports and the credit summary read from it. */
@Module({
  controllers: [createHealthController('billing-meter'), CreditLedgerController, UsageReportsController, CreditSummaryController],
  providers: [LedgerReportStore, CreditLedger, ChargeGroupCommit, QuotaChangePublisher, UsageReports, CreditSummaryReport],
})
export class BillingMeterModule {}
