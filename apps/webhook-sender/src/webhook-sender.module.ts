import { PLATFORM_CONFIG, PlatformConfig } from '@lib/config';
import { createHealthController } from '@lib/runtime';
import { TargetAllowlist, TargetGuard } from '@lib/target-guard';
import { Module } from '@nestjs/common';
import { CallbackTransport } from './delivery/callback-transport';
import { WebhookDispatcher } from './delivery/webhook-dispatcher';
import { DeliveryLog } from './delivery-log/delivery-log';
import { SigningSecrets } from './signing-secrets/signing-secrets';
import { WebhookSenderController } from './webhook-sender.controller';

/** webhook-sender: signed, durable, scheduled delivery of run-completion webhooks from the outbox. */
@Module({
  controllers: [createHealthController('webhook-sender'), WebhookSenderController],
  providers: [
    { provide: TargetGuard, inject: [PLATFORM_CONFIG], useFactory: (config: PlatformConfig) => new TargetGuard(new TargetAllowlist(config.targetAllowlist)) },
    CallbackTransport,
    SigningSecrets,
    DeliveryLog,
    WebhookDispatcher,
  ],
})
export class WebhookSenderModule {}
