import { createHealthController } from '@lib/runtime';
import { Module } from '@nestjs/common';
import { CreditLedger } from './credit-ledger/credit-ledger';
import { CreditLedgerController } from './credit-ledger/credit-ledger.controller';
import { QuotaChangePublisher } from './credit-ledger/quota-change.publisher';

/** billing-meter: the credit ledger (quota, reservations, charges). Usage reports come with issue 7. */
@Module({
  controllers: [createHealthController('billing-meter'), CreditLedgerController],
  providers: [CreditLedger, QuotaChangePublisher],
})
export class BillingMeterModule {}
