import { QuotaState, SUBJECTS } from '@lib/contracts';
import { MessageBus } from '@lib/messaging';
import { Inject, Injectable } from '@nestjs/common';

/**
 * Tells every gateway replica a client's new used credits, so gateways answer the quota headers
 * from memory instead of asking billing-meter on every request. At most once: a lost event only
 * means a gateway asks again when its cached entry times out.
 */
@Injectable()
export class QuotaChangePublisher {
  constructor(@Inject(MessageBus) private readonly bus: MessageBus) {}

  changed(clientId: string, quota: QuotaState): void {
    this.bus.emit(SUBJECTS.billing.quotaChanged, {
      client_id: clientId,
      month: quota.month,
      used: quota.used,
      resets_at: quota.resets_at,
      as_of: quota.as_of,
    });
  }
}
