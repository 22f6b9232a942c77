import type { PlatformConfig } from '@lib/config';
import { type BoundedContext, serviceLifecycleSubject } from '@lib/contracts';
import { createRootLogger, NestPinoLogger } from '@lib/logging';
import {
  CorrelationInterceptor,
  createMessageValidationPipe,
  createServerOptions,
  type InProcessBus,
  MessageBus,
  LargePayloadInterceptor,
  OpsEventPublisher,
  serviceLifecyclePayload,
  RpcErrorFilter,
  subscriptionsRegistered,
} from '@lib/messaging';
import type { INestMicroservice, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';

/**
 * Starts one message-serving bounded context: its module, its transport server (NATS queue group
 * named after the context, or the in-process bus), and the same edge validation, error
 * serialization and correlation handling for every context.
 */
export async function bootstrapMessageContext(
  serviceName: BoundedContext,
  rootModule: Type<unknown>,
  config: PlatformConfig,
  bus?: InProcessBus,
): Promise<INestMicroservice> {
  const logger = new NestPinoLogger(createRootLogger(serviceName, config.logLevel));
  const app = await NestFactory.createMicroservice(rootModule, {
    ...createServerOptions(serviceName, { natsUrl: config.natsUrl, bus }),
    logger,
    bufferLogs: false,
  });
  app.useGlobalPipes(createMessageValidationPipe());
  app.useGlobalFilters(new RpcErrorFilter());
  // Interceptors on NATS only. Every interceptor costs each message an AsyncResource.bind in Nest's
  // consumer (two deprecation wrappers made on Node 20) and an rxjs chain, even one that passes the
  // call through: the in-process server enters the correlation scope itself, and only NATS has a
  // message size limit to park around.
  const messageBus = app.get(MessageBus);
  if (messageBus.kind === 'nats') app.useGlobalInterceptors(new CorrelationInterceptor(), new LargePayloadInterceptor(messageBus));
  await app.listen();
  await subscriptionsRegistered(app, { natsUrl: config.natsUrl, bus });
  announceServiceStarted(app.get(OpsEventPublisher), serviceName, config);
  return app;
}

/** `ops.<context>.service-started.v1`, once the context serves. */
export function announceServiceStarted(ops: OpsEventPublisher, serviceName: BoundedContext, config: PlatformConfig): void {
  ops.publishRaw(serviceLifecycleSubject(serviceName, 'service-started'), serviceLifecyclePayload(config, null));
}
