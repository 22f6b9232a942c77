import { type PlatformConfig, runtimeModeOf } from '@lib/config';
import type { OpsEventEnvelope, OpsEventMap, OpsSubject, ServiceLifecycleEventPayload } from '@lib/contracts';
import { OPS_SUBJECT_PREFIX } from '@lib/contracts';
import { Logger } from '@nestjs/common';
import { connect, type NatsConnection } from 'nats';
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import type { InProcessBus } from './in-process-bus';

/** Where ops events go: the in-process bus, a NATS server, or both (see OpsEventPublisher). */
export interface OpsEventSink {
  send(subject: string, event: OpsEventEnvelope & object): void;
  close(): Promise<void>;
}

/** Subscribers of this process (the embedded runtime): every in-process listener of the subject, and taps. */
export class InProcessOpsSink implements OpsEventSink {
  constructor(private readonly bus: InProcessBus) {}
  send(subject: string, event: object): void {
    this.bus.publish(subject, event, {});
  }
  async close(): Promise<void> {}
}

// Events published before the connection is up wait here; past this many the oldest go (and are counted).
const MAX_WAITING_EVENTS = 10_000;

/**
 * Plain JSON on a NATS connection of its own (no Nest envelope, so `nats sub 'ops.>'` and any
 * NATS client read the payloads as documented). Connects in the background and keeps
 * reconnecting; while it is down, events wait in a bounded buffer (the NATS client buffers too).
 */
export class NatsOpsSink implements OpsEventSink {
  private readonly logger = new Logger('OpsEvents');
  private connection: NatsConnection | null = null;
  private readonly waiting: Array<[string, Uint8Array]> = [];
  private closed = false;
  dropped = 0;

  constructor(
    private readonly url: string,
    name: string,
  ) {
    connect({ servers: [url], name, maxReconnectAttempts: -1, reconnectTimeWait: 1000, waitOnFirstConnect: true }).then(
      (nc) => {
        if (this.closed) return void nc.close();
        this.connection = nc;
        for (const [subject, data] of this.waiting.splice(0)) nc.publish(subject, data);
      },
      (error: unknown) => this.logger.warn(`ops events: cannot connect to ${url}: ${String(error)}`),
    );
  }

  send(subject: string, event: object): void {
    const data = Buffer.from(JSON.stringify(event));
    if (this.connection) {
      try {
        this.connection.publish(subject, data);
      } catch (error) {
        this.logger.warn(`ops event ${subject} not published: ${String(error)}`);
      }
      return;
    }
    if (this.waiting.length >= MAX_WAITING_EVENTS) {
      this.waiting.shift();
      this.dropped += 1;
    }
    this.waiting.push([subject, data]);
  }

  async close(): Promise<void> {
    this.closed = true;
    // drain: what was published reaches the server before the connection closes.
    await this.connection?.drain().catch(() => undefined);
  }
}

export type OpsEventListener = (subject: string, event: OpsEventEnvelope & Record<string, unknown>) => void;

/**
 * Publishes ops events (libs/contracts ops-events): stamps the envelope and hands the event to
 * every sink. Never throws and never waits: callers publish from after-commit hooks and must not
 * be slowed or failed by ops tooling. Listeners of this process (metrics) see every event too.
 */
export class OpsEventPublisher {
  private readonly instance = `${os.hostname()}:${process.pid}`;
  private readonly listeners = new Set<OpsEventListener>();

  constructor(
    private readonly service: string,
    private readonly sinks: OpsEventSink[],
  ) {}

  publish<S extends OpsSubject>(subject: S, payload: OpsEventMap[S]): void {
    this.publishRaw(subject, payload as object);
  }

  /** For subjects built at run time (`ops.<context>.service-started.v1`). */
  publishRaw(subject: string, payload: object): void {
    const event = {
      event_id: randomUUID(),
      event: subject.slice(OPS_SUBJECT_PREFIX.length + 1).replace(/\.v\d+$/, ''),
      occurred_at: new Date().toISOString(),
      source: { service: this.service, instance: this.instance },
      ...payload,
    };
    for (const sink of this.sinks) {
      try {
        sink.send(subject, event);
      } catch {
        // A sink never fails its caller (see class comment); NatsOpsSink logs its own failures.
      }
    }
    for (const listener of this.listeners) listener(subject, event);
  }

  /** Sees every event this process publishes (metrics count them). */
  listen(listener: OpsEventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async close(): Promise<void> {
    await Promise.all(this.sinks.map((s) => s.close()));
  }
}

/**
 * The sinks of one process: in the embedded runtime the in-process bus, plus OPS_NATS_URL when
 * set; in the distributed runtime OPS_NATS_URL or NATS_URL. One connection per process, shared
 * by its contexts (see opsEventPublisherFor).
 */
export function opsSinksFor(
  settings: { natsUrl: string | null; opsNatsUrl: string | null },
  bus: InProcessBus | undefined,
): OpsEventSink[] {
  const sinks: OpsEventSink[] = [];
  if (bus) sinks.push(new InProcessOpsSink(bus));
  const natsUrl = settings.opsNatsUrl ?? settings.natsUrl;
  if (natsUrl) sinks.push(sharedNatsSink(natsUrl));
  return sinks;
}

const natsSinks = new Map<string, { sink: NatsOpsSink; users: number }>();

// Every context of a process publishes through one connection; it closes when the last one closes.
function sharedNatsSink(url: string): OpsEventSink {
  let entry = natsSinks.get(url);
  if (!entry) {
    entry = { sink: new NatsOpsSink(url, `ops-events-${process.pid}`), users: 0 };
    natsSinks.set(url, entry);
  }
  entry.users += 1;
  const shared = entry;
  let closed = false;
  return {
    send: (subject, event) => shared.sink.send(subject, event),
    async close() {
      if (closed) return;
      closed = true;
      shared.users -= 1;
      if (shared.users === 0) {
        natsSinks.delete(url);
        await shared.sink.close();
      }
    },
  };
}

/** The payload of `ops.<context>.service-started.v1` and `…service-stopping.v1`. */
export function serviceLifecyclePayload(config: Pick<PlatformConfig, 'natsUrl'>, reason: string | null): ServiceLifecycleEventPayload {
  return { node_version: process.version, runtime: runtimeModeOf(config), transport: config.natsUrl ? 'nats' : 'in-process', reason };
}
