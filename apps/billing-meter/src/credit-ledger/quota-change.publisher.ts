import { OPS_SUBJECTS, QuotaState, SUBJECTS } from '@lib/contracts';
import { MessageBus, OpsEventPublisher } from '@lib/messaging';
import { DATABASE, DatabaseConnection, recordQuotaThresholdsReached } from '@lib/persistence';
import { CLOCK, Clock } from '@lib/runtime';
import { Inject, Injectable, Logger } from '@nestjs/common';

/**
 * Tells every gateway replica a client's new used credits, so gateways answer the quota headers
 * from memory instead of asking billing-meter on every request. At most once: a lost event only
 * means a gateway asks again when its cached entry times out.
 *
 * Also tells ops tooling when the change took the client to 80 % or 100 % of its monthly limit
 * (`used` as enforcement counts it: charged plus held), once per threshold and month.
 */
@Injectable()
export class QuotaChangePublisher {
  private readonly logger = new Logger('QuotaChangePublisher');

  constructor(
    @Inject(MessageBus) private readonly bus: MessageBus,
    @Inject(OpsEventPublisher) private readonly ops: OpsEventPublisher,
    @Inject(DATABASE) private readonly db: DatabaseConnection,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  changed(clientId: string, quota: QuotaState): void {
    this.bus.emit(SUBJECTS.billing.quotaChanged, {
      client_id: clientId,
      month: quota.month,
      used: quota.used,
      resets_at: quota.resets_at,
      as_of: quota.as_of,
    });
    if (quota.limit !== null && quota.used * 100 >= quota.limit * 80) void this.announceThresholds(clientId, quota);
  }

  // Off the request path: the reply does not wait for the notice row.
  private async announceThresholds(clientId: string, quota: QuotaState): Promise<void> {
    try {
      const reached = await recordQuotaThresholdsReached(this.db.sql, {
        clientId,
        month: quota.month,
        used: quota.used,
        limit: quota.limit,
        at: this.clock.now(),
      });
      for (const threshold of reached)
        this.ops.publish(OPS_SUBJECTS.quotaThresholdReached, {
          client_id: clientId,
          month: quota.month,
          threshold_percent: threshold,
          used: quota.used,
          limit: quota.limit!,
        });
    } catch (error) {
      this.logger.warn(`quota threshold of ${clientId} not recorded: ${String(error)}`);
    }
  }
}
