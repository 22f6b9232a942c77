import { PLATFORM_CONFIG, PlatformConfig } from '@lib/config';
import { DynamicModule, Global, Inject, Injectable, Module, OnApplicationShutdown } from '@nestjs/common';
import { InProcessBus } from './in-process-bus';
import { MessageBus } from './message-bus';
import { createTransportClient, transportSettingsOf } from './transport.factory';

@Injectable()
class MessageBusCloser implements OnApplicationShutdown {
  constructor(@Inject(MessageBus) private readonly bus: MessageBus) {}
  async onApplicationShutdown(): Promise<void> {
    await this.bus.close();
  }
}

/** Gives a context its typed MessageBus for calling other contexts. */
@Global()
@Module({})
export class MessagingModule {
  static forContext(serviceName: string, bus: InProcessBus | undefined): DynamicModule {
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
        MessageBusCloser,
      ],
      exports: [MessageBus],
    };
  }
}
