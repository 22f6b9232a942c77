import { PLATFORM_CONFIG, PlatformConfig } from '@lib/config';
import { platformMetrics } from '@lib/metrics';
import { serviceLifecycleSubject, type BoundedContext } from '@lib/contracts';
import { BeforeApplicationShutdown, DynamicModule, Global, Inject, Injectable, Module, OnApplicationShutdown } from '@nestjs/common';
import { InProcessBus } from './in-process-bus';
import { JetStreamJobQueue, JobQueue } from './job-queue';
import { MessageBus } from './message-bus';
import { OpsEventPublisher, opsSinksFor, serviceLifecyclePayload } from './ops-event-publisher';
import { createTransportClient, transportSettingsOf } from './transport.factory';

/** DI token of the context's JobQueue (JetStream over NATS, the in-process queue otherwise). */
export const JOB_QUEUE_ADAPTER = Symbol('JOB_QUEUE_ADAPTER');

/** The context's name, for its service-started/-stopping ops events. */
const SERVICE_NAME = Symbol('SERVICE_NAME');

@Injectable()
class MessageBusCloser implements BeforeApplicationShutdown, OnApplicationShutdown {
  constructor(
    @Inject(MessageBus) private readonly bus: MessageBus,
    @Inject(JOB_QUEUE_ADAPTER) private readonly jobs: JobQueue,
    @Inject(OpsEventPublisher) private readonly ops: OpsEventPublisher,
    @Inject(SERVICE_NAME) private readonly serviceName: BoundedContext,
    @Inject(PLATFORM_CONFIG) private readonly config: PlatformConfig,
  ) {}
  beforeApplicationShutdown(signal?: string): void {
    this.ops.publishRaw(
      serviceLifecycleSubject(this.serviceName, 'service-stopping'),
      serviceLifecyclePayload(this.config, signal ?? 'shutdown'),
    );
  }
  async onApplicationShutdown(): Promise<void> {
    await this.bus.close();
    // The in-process queue is shared by every context of the process; only a NATS connection is ours.
    if (this.jobs instanceof JetStreamJobQueue) await this.jobs.close();
    await this.ops.close();
  }
}

/** Gives a context its typed MessageBus for calling other contexts. */
@Global()
@Module({})
export class MessagingModule {
  static forContext(serviceName: BoundedContext, bus: InProcessBus | undefined): DynamicModule {
    return {
      module: MessagingModule,
      providers: [
        {
          provide: MessageBus,
          inject: [PLATFORM_CONFIG],
          useFactory: async (config: PlatformConfig) => {
            const messageBus = new MessageBus(createTransportClient(serviceName, transportSettingsOf(config, bus)), config.rpcTimeoutMs);
            await messageBus.connect();
            return messageBus;
          },
        },
        {
          provide: JOB_QUEUE_ADAPTER,
          inject: [PLATFORM_CONFIG],
          // Connects lazily: only contexts that publish or consume jobs open a JetStream connection.
          useFactory: (config: PlatformConfig): JobQueue =>
            config.natsUrl ? new JetStreamJobQueue(config.natsUrl, serviceName, config.engineSilenceMs) : requireBus(bus).jobQueue,
        },
        { provide: SERVICE_NAME, useValue: serviceName },
        {
          provide: OpsEventPublisher,
          inject: [PLATFORM_CONFIG],
          useFactory: (config: PlatformConfig) => {
            const publisher = new OpsEventPublisher(serviceName, opsSinksFor(config, bus));
            publisher.listen((subject) => platformMetrics.countOpsEvent(subject));
            return publisher;
          },
        },
        MessageBusCloser,
      ],
      exports: [MessageBus, JOB_QUEUE_ADAPTER, OpsEventPublisher],
    };
  }
}

function requireBus(bus: InProcessBus | undefined): InProcessBus {
  if (!bus) throw new Error('the embedded runtime needs an InProcessBus (NATS_URL is unset)');
  return bus;
}
