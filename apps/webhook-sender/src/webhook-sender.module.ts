import { createHealthController } from '@lib/runtime';
import { targetGuardProvider } from '@lib/target-guard';
import { Module } from '@nestjs/common';
import { RunDeliveryListing } from './run-deliveries/run-delivery-listing';
import { CallbackTransport } from './delivery/callback-transport';
import { WebhookDispatcher } from './delivery/webhook-dispatcher';
import { DeliveryLog } from './delivery-log/delivery-log';
import { SigningSecrets } from './signing-secrets/signing-secrets';
import { WebhookSenderController } from './webhook-sender.controller';
import { WebhookOutboxStore } from './persistence/webhook-outbox.store';
import { WebhookSecretStore } from './persistence/webhook-secrets.store';

/** webhook-sender: signed, durable, scheduled delivery of run-completion and crawl-page webhooks from the outbox. */
@Module({
  controllers: [createHealthController('webhook-sender'), WebhookSenderController],
  providers: [
    targetGuardProvider,
    WebhookOutboxStore,
    WebhookSecretStore,
    CallbackTransport,
    SigningSecrets,
    DeliveryLog,
    RunDeliveryListing,
    WebhookDispatcher,
  ],
})
export class WebhookSenderModule {}
