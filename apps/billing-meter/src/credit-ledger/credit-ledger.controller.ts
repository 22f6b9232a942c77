import {
  ChargeLeasedCreditsCommand,
  ChargeLeasedCreditsReply,
  CommitCreditsCommand,
  CommitCreditsReply,
  LeaseCreditsCommand,
  LeaseCreditsReply,
  QuotaQuery,
  QuotaState,
  ReleaseCreditsCommand,
  ReleaseCreditsReply,
  ReserveCreditsCommand,
  ReserveCreditsReply,
  SUBJECTS,
} from '@lib/contracts';
import { Controller } from '@nestjs/common';
import { platformMetrics } from '@lib/metrics';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { ChargeGroupCommit } from './charge-group-commit';
import { CreditLedger } from './credit-ledger';
import { QuotaChangePublisher } from './quota-change.publisher';

/** Message adapter of the credit ledger: translate and delegate, nothing else. */
@Controller()
export class CreditLedgerController {
  constructor(
    private readonly ledger: CreditLedger,
    private readonly charges: ChargeGroupCommit,
    private readonly quotaChanges: QuotaChangePublisher,
  ) {}

  @MessagePattern(SUBJECTS.billing.quotaQuery)
  quota(@Payload() query: QuotaQuery): Promise<QuotaState> {
    return this.ledger.quota(query.client_id, query.monthly_credits ?? null);
  }

  @MessagePattern(SUBJECTS.billing.creditsReserve)
  async reserve(@Payload() command: ReserveCreditsCommand): Promise<ReserveCreditsReply> {
    const reply = await this.ledger.reserve({ ...command, monthly_credits: command.monthly_credits ?? null });
    if (reply.granted) this.quotaChanges.changed(command.client_id, reply.quota);
    return reply;
  }

  @MessagePattern(SUBJECTS.billing.creditsCommit)
  async commit(@Payload() command: CommitCreditsCommand): Promise<CommitCreditsReply> {
    const reply = await this.ledger.commit(command, command.monthly_credits ?? null);
    if (reply.newly_charged && command.credits > 0) platformMetrics.creditsCharged.inc({ source: 'reservation' }, command.credits);
    this.quotaChanges.changed(reply.client_id, reply.quota);
    return reply;
  }

  @MessagePattern(SUBJECTS.billing.creditsRelease)
  async release(@Payload() command: ReleaseCreditsCommand): Promise<ReleaseCreditsReply> {
    const reply = await this.ledger.release(command.reservation_id, command.monthly_credits ?? null);
    this.quotaChanges.changed(reply.client_id, reply.quota);
    return reply;
  }

  @MessagePattern(SUBJECTS.billing.creditsLease)
  async lease(@Payload() command: LeaseCreditsCommand): Promise<LeaseCreditsReply> {
    const reply = await this.ledger.lease({
      ...command,
      lease_id: command.lease_id ?? null,
      monthly_credits: command.monthly_credits ?? null,
    });
    if (reply.granted) this.quotaChanges.changed(command.client_id, reply.quota);
    return reply;
  }

  @MessagePattern(SUBJECTS.billing.creditsLeaseCharge)
  async chargeLeased(@Payload() command: ChargeLeasedCreditsCommand): Promise<ChargeLeasedCreditsReply> {
    // No quota event: the month's used credits did not change (held became charged).
    const reply = await this.charges.charge(command);
    if (reply.newly_charged && command.credits > 0) platformMetrics.creditsCharged.inc({ source: 'sync' }, command.credits);
    return reply;
  }
}
