import { createHealthController } from '@lib/runtime';
import { Module } from '@nestjs/common';

/** The webhook-sender bounded context. Today it answers health queries; its use cases arrive with later issues. */
@Module({
  controllers: [createHealthController('webhook-sender')],
})
export class WebhookSenderModule {}
