import { createHealthController } from '@lib/runtime';
import { targetGuardProvider } from '@lib/target-guard';
import { Module } from '@nestjs/common';
import { CallbackTransport } from './delivery/callback-transport';
import { WebhookDispatcher } from './delivery/webhook-dispatcher';
import { DeliveryLog } from './delivery-log/delivery-log';
import { SigningSecrets } from './signing-secrets/signing-secrets';
import { WebhookSenderController } from './webhook-sender.controller';
import { WebhookOutboxStore } from './persistence/webhook-outbox.store';
import { WebhookSecretStore } from './persistence/webhook-secrets.store';

/** webhook-sender: signed, durable, scheduled delivery of run-completion webhooks from the outbox. */
@Module({
  controllers: [createHealthController('webhook-sender'), WebhookSenderController],
  providers: [
    targetGuardProvider,
    WebhookOutboxStore,
    WebhookSecretStore,
    CallbackTransport,
    SigningSecrets,
    DeliveryLog,
    WebhookDispatcher,
  ],
})
export class WebhookSenderModule {}
