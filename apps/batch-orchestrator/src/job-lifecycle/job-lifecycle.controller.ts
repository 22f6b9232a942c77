import {
  ClaimJobCommand,
  ClaimJobReply,
  CompleteJobCommand,
  CompleteJobReply,
  HeartbeatJobCommand,
  HeartbeatJobReply,
  SUBJECTS,
} from '@lib/contracts';
import { MessageBus } from '@lib/messaging';
import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { JobDispatcher } from '../dispatch/job-dispatcher';
import { JobClaims } from './job-claims';
import { JobCompletion, JobOutcome } from './job-completion';
import { QuotaNotifier } from './quota-notifier';

/** The workers' side of a job: claim, heartbeat, complete. Each finished job frees a place for the next. */
@Controller()
export class JobLifecycleController {
  constructor(
    private readonly claims: JobClaims,
    private readonly completion: JobCompletion,
    private readonly dispatcher: JobDispatcher,
    private readonly quota: QuotaNotifier,
    @Inject(MessageBus) private readonly bus: MessageBus,
  ) {}

  @MessagePattern(SUBJECTS.jobs.claim)
  async claim(@Payload() command: ClaimJobCommand): Promise<ClaimJobReply> {
    const { reply, settledFor, heldFor, runCompleted } = await this.claims.claim(command);
    if (settledFor) {
      this.dispatcher.requestDispatch(settledFor);
      await this.notifyQuota(settledFor, runCompleted);
    }
    if (heldFor) await this.notifyQuota(heldFor, false);
    return reply;
  }

  @MessagePattern(SUBJECTS.jobs.heartbeat)
  async heartbeat(@Payload() command: HeartbeatJobCommand): Promise<HeartbeatJobReply> {
    return { held: await this.claims.heartbeat(command) };
  }

  @MessagePattern(SUBJECTS.jobs.complete)
  async complete(@Payload() command: CompleteJobCommand): Promise<CompleteJobReply> {
    // The (possibly multi-MB, parked) result is fetched before the transaction, never inside it.
    const outcome: JobOutcome = command.execution
      ? {
          kind: 'executed',
          facts: command.execution.facts,
          result: await this.bus.unpack(command.execution.result),
          executionTimeMs: command.execution_time_ms,
        }
      : {
          kind: command.failure?.kind ?? 'worker_failure',
          message: command.failure?.message ?? 'the worker reported no outcome',
          executionTimeMs: command.execution_time_ms,
        };
    const { accepted, clientId, creditsMoved, runCompleted } = await this.completion.complete(command.job_id, command.attempt, outcome);
    if (clientId) {
      this.dispatcher.requestDispatch(clientId);
      if (creditsMoved || runCompleted) await this.notifyQuota(clientId, runCompleted);
    }
    return { accepted };
  }

  /**
   * Quota events go out off the job path, except at a run's end: a client that sees the run
   * completed then reads quota headers that count all of its jobs.
   */
  private async notifyQuota(clientId: string, runCompleted: boolean): Promise<void> {
    const notified = this.quota.changed(clientId, { now: runCompleted });
    if (runCompleted) await notified;
  }
}
