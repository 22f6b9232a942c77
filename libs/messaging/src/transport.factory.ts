import type { PlatformConfig } from '@lib/config';
import {
  type ClientProxy,
  ClientProxyFactory,
  type CustomStrategy,
  type NatsOptions,
  NatsRecordBuilder,
  Transport,
} from '@nestjs/microservices';
import { headers as natsHeaders } from 'nats';
import { type InProcessBus } from './in-process-bus';
import { InProcessClient, InProcessRecord, InProcessServer } from './in-process.transport';

/**
 * The one place that decides how contexts talk: NATS when NATS_URL is set, the in-process bus
 * otherwise. Both sides use the same subjects, payloads and header names.
 */
export interface TransportSettings {
  natsUrl: string | null;
  /** Required in the embedded runtime: the bus every context of this process shares. */
  bus?: InProcessBus;
}

export function transportSettingsOf(config: PlatformConfig, bus?: InProcessBus): TransportSettings {
  return { natsUrl: config.natsUrl, bus };
}

/**
 * Server options for NestFactory.createMicroservice / app.connectMicroservice. `fanOut` drops the
 * queue group so that every replica receives every message: for caches that listen to events
 * (never for request/reply subjects, which must be answered once).
 */
export function createServerOptions(
  serviceName: string,
  settings: TransportSettings,
  mode: { fanOut?: boolean } = {},
): NatsOptions | CustomStrategy {
  if (settings.natsUrl) {
    return {
      transport: Transport.NATS,
      options: {
        servers: [settings.natsUrl],
        // One queue group per context: replicas of a context share its work, each request is
        // handled once, and every context still sees the events it subscribes to.
        queue: mode.fanOut ? undefined : serviceName,
        name: `${serviceName}-${process.pid}`,
        maxReconnectAttempts: -1,
        reconnectTimeWait: 1000,
        waitOnFirstConnect: false,
      },
    };
  }
  // In-process fan-out: a group of its own, so this server gets every event like a NATS plain subscriber.
  const group = mode.fanOut ? `${serviceName}#${process.pid}-${(fanOutServers += 1)}` : serviceName;
  return { strategy: new InProcessServer(requireBus(settings), group) };
}

let fanOutServers = 0;

export interface TransportClient {
  client: ClientProxy;
  /** Wraps a payload with headers in the form this transport carries them. */
  wrap(payload: unknown, headers: Record<string, string>): unknown;
  kind: 'nats' | 'in-process';
  /**
   * Hands every event on `subject` to `handler`, in no queue group: this listener hears all of
   * them, whichever replicas of its context also listen. Returns what stops it.
   */
  listenAll(subject: string, handler: (payload: unknown) => void): Promise<() => void>;
}

interface NatsSubscriber {
  subscribe(subject: string, options: { callback: (error: unknown, message: { data: Uint8Array }) => void }): { unsubscribe(): void };
}

export function createTransportClient(serviceName: string, settings: TransportSettings): TransportClient {
  if (settings.natsUrl) {
    const client = ClientProxyFactory.create({
      transport: Transport.NATS,
      options: {
        servers: [settings.natsUrl],
        name: `${serviceName}-client-${process.pid}`,
        maxReconnectAttempts: -1,
        reconnectTimeWait: 1000,
      },
    }) as ClientProxy;
    return {
      client,
      kind: 'nats',
      wrap(payload, headers) {
        const h = natsHeaders();
        for (const [key, value] of Object.entries(headers)) h.set(key, value);
        return new NatsRecordBuilder(payload).setHeaders(h).build();
      },
      async listenAll(subject, handler) {
        await client.connect();
        // A plain subscription: Nest's servers join their context's queue group, which splits events between replicas.
        const subscription = client.unwrap<NatsSubscriber>().subscribe(subject, {
          callback: (error, message) => {
            if (error) return;
            let packet: { data?: unknown };
            try {
              // Nest's NATS client sends events as JSON {pattern, data}.
              packet = JSON.parse(Buffer.from(message.data).toString('utf8')) as { data?: unknown };
            } catch {
              return;
            }
            handler(packet.data);
          },
        });
        return () => subscription.unsubscribe();
      },
    };
  }
  const bus = requireBus(settings);
  return {
    client: new InProcessClient(bus),
    kind: 'in-process',
    wrap: (payload, headers) => new InProcessRecord(payload, headers),
    listenAll: async (subject, handler) =>
      bus.subscribe(subject, `listen-all#${(fanOutServers += 1)}`, 'event', async (data) => handler(data)),
  };
}

function requireBus(settings: TransportSettings): InProcessBus {
  if (!settings.bus) throw new Error('the embedded runtime needs an InProcessBus (NATS_URL is unset)');
  return settings.bus;
}

interface NatsFlushable {
  flush(): Promise<void>;
}

/**
 * Resolves once the NATS server holds every subscription a listening microservice made. Nest's
 * NATS server sends its SUBs without waiting, so a context that announced itself straight after
 * `listen()` could be asked by another connection before the server knew anyone answers
 * ("no subscribers"); a flush is a PING that the server answers after the SUBs before it. The
 * in-process server registers its handlers synchronously and needs nothing.
 */
export async function subscriptionsRegistered(server: { unwrap<T>(): T }, settings: TransportSettings): Promise<void> {
  if (!settings.natsUrl) return;
  await server.unwrap<NatsFlushable>().flush();
}
