import {
  CommitCreditsCommand,
  CommitCreditsReply,
  QuotaQuery,
  QuotaState,
  ReleaseCreditsCommand,
  ReleaseCreditsReply,
  ReserveCreditsCommand,
  ReserveCreditsReply,
  SUBJECTS,
} from '@lib/contracts';
import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { CreditLedger } from './credit-ledger';

/** Message adapter of the credit ledger: translate and delegate, nothing else. */
@Controller()
export class CreditLedgerController {
  constructor(private readonly ledger: CreditLedger) {}

  @MessagePattern(SUBJECTS.billing.quotaQuery)
  quota(@Payload() query: QuotaQuery): Promise<QuotaState> {
    return this.ledger.quota(query.client_id, query.monthly_credits ?? null);
  }

  @MessagePattern(SUBJECTS.billing.creditsReserve)
  reserve(@Payload() command: ReserveCreditsCommand): Promise<ReserveCreditsReply> {
    return this.ledger.reserve({ ...command, monthly_credits: command.monthly_credits ?? null });
  }

  @MessagePattern(SUBJECTS.billing.creditsCommit)
  commit(@Payload() command: CommitCreditsCommand): Promise<CommitCreditsReply> {
    return this.ledger.commit(command, command.monthly_credits ?? null);
  }

  @MessagePattern(SUBJECTS.billing.creditsRelease)
  release(@Payload() command: ReleaseCreditsCommand): Promise<ReleaseCreditsReply> {
    return this.ledger.release(command.reservation_id, command.monthly_credits ?? null);
  }
}
