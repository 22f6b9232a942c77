import { OPS_SUBJECTS, SUBJECTS } from '@lib/contracts';
import { MessageBus, OpsEventPublisher } from '@lib/messaging';
import { creditMonthResetOf, creditUsageOf, DATABASE, DatabaseConnection, recordQuotaThresholdsReached } from '@lib/persistence';
import { CLOCK, Clock, CoalescedPasses } from '@lib/runtime';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { RunStore } from '../persistence/runs.store';

/** Gateways' quota caches lag a running batch by at most this (they also expire on their own). */
export const QUOTA_EVENT_SPACING_MS = 250;

/**
 * Job claims hold credits and completions charge them outside billing-meter (in the job's own
 * transaction), so the gateways' quota caches hear about it from here, with the same event
 * billing-meter publishes. Off the job path and coalesced: a run's jobs end dozens of times a
 * second, and each event costs a usage read. While one read is under way for a client, further
 * changes share one more read after it, so the last event always follows the last change. Reads
 * for one client start at least QUOTA_EVENT_SPACING_MS apart (two reads per job were a large share
 * of a run's database time), except the one a run's end waits for.
 */
@Injectable()
export class QuotaNotifier {
  private readonly logger = new Logger('QuotaNotifier');
  private readonly passes = new CoalescedPasses<string>(
    (clientId) => this.publish(clientId),
    (clientId, error) => this.logger.warn(`quota event for ${clientId} not sent: ${String(error)}`),
    QUOTA_EVENT_SPACING_MS,
  );

  constructor(
    @Inject(DATABASE) private readonly db: DatabaseConnection,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(MessageBus) private readonly bus: MessageBus,
    @Inject(OpsEventPublisher) private readonly ops: OpsEventPublisher,
    private readonly runs: RunStore,
  ) {}

  /**
   * Resolves once an event reflecting this change is out (never rejects: a lost event is logged).
   * `now`: someone waits for it (a run's end), so it does not wait for the spacing.
   */
  changed(clientId: string, options: { now?: boolean } = {}): Promise<void> {
    return this.passes.request(clientId, options);
  }

  private async publish(clientId: string): Promise<void> {
    const now = this.clock.now();
    const usage = await creditUsageOf(this.db.sql, clientId, now);
    this.bus.emit(SUBJECTS.billing.quotaChanged, {
      client_id: clientId,
      month: usage.month,
      used: usage.charged + usage.held,
      resets_at: creditMonthResetOf(now),
      as_of: now.getTime(),
    });
    await this.announceThresholds(clientId, usage.month, usage.charged + usage.held, now);
  }

  /**
   * 80 % / 100 % of the monthly limit (ops events, once per threshold and month: see
   * recordQuotaThresholdsReached). The limit is the one the gateway resolved for the client's
   * newest run (the plan's, at its last write); unlimited, nothing to tell.
   */
  private async announceThresholds(clientId: string, month: string, used: number, now: Date): Promise<void> {
    const limit = await this.runs.newestMonthlyLimit(clientId);
    if (limit === null) return;
    for (const threshold of await recordQuotaThresholdsReached(this.db.sql, { clientId, month, used, limit, at: now }))
      this.ops.publish(OPS_SUBJECTS.quotaThresholdReached, { client_id: clientId, month, threshold_percent: threshold, used, limit });
  }
}
