import { SUBJECTS } from '@lib/contracts';
import { MessageBus } from '@lib/messaging';
import { creditMonthResetOf, creditUsageOf, DATABASE, DatabaseConnection } from '@lib/persistence';
import { CLOCK, Clock } from '@lib/runtime';
import { Inject, Injectable } from '@nestjs/common';

/**
 * Job claims hold credits and completions charge them outside billing-meter (in the job's own
 * transaction), so the gateways' quota caches hear about it from here, with the same event
 * billing-meter publishes.
 */
@Injectable()
export class QuotaNotifier {
  constructor(
    @Inject(DATABASE) private readonly db: DatabaseConnection,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(MessageBus) private readonly bus: MessageBus,
  ) {}

  async changed(clientId: string): Promise<void> {
    const now = this.clock.now();
    const usage = await creditUsageOf(this.db.sql, clientId, now);
    this.bus.emit(SUBJECTS.billing.quotaChanged, {
      client_id: clientId,
      month: usage.month,
      used: usage.charged + usage.held,
      resets_at: creditMonthResetOf(now),
      as_of: now.getTime(),
    });
  }
}
