import { InProcessJobQueue } from './job-queue';

/**
 * The embedded runtime's message broker: the same request/reply and event semantics as NATS with
 * queue groups, inside one process. Payloads are JSON round-tripped on the way in and out, so a
 * handler sees exactly what it would see over NATS (no shared object references, Dates become
 * strings) and code that works embedded works distributed.
 */
export type InProcessHeaders = Record<string, string>;

type RequestHandler = (data: unknown, headers: InProcessHeaders) => Promise<unknown>;
type EventHandler = (data: unknown, headers: InProcessHeaders) => Promise<void>;

interface Subscription {
  group: string;
  kind: 'request' | 'event';
  handler: RequestHandler | EventHandler;
}

export class NoRespondersError extends Error {
  constructor(readonly subject: string) {
    super(`no context is listening on "${subject}"`);
  }
}

export class InProcessBus {
  /** Batch job dispatch between the contexts of this process (JetStream's stand-in). */
  readonly jobQueue = new InProcessJobQueue();
  private readonly subscriptions = new Map<string, Subscription[]>();
  private readonly roundRobin = new Map<string, number>();

  subscribe(subject: string, group: string, kind: 'request' | 'event', handler: RequestHandler | EventHandler): () => void {
    const list = this.subscriptions.get(subject) ?? [];
    const subscription: Subscription = { group, kind, handler };
    list.push(subscription);
    this.subscriptions.set(subject, list);
    return () => {
      const current = this.subscriptions.get(subject) ?? [];
      this.subscriptions.set(
        subject,
        current.filter((s) => s !== subscription),
      );
    };
  }

  /** Delivers to one request handler (round robin among replicas, like a NATS queue group). */
  async request(subject: string, data: unknown, headers: InProcessHeaders): Promise<unknown> {
    const candidates = (this.subscriptions.get(subject) ?? []).filter((s) => s.kind === 'request');
    if (candidates.length === 0) throw new NoRespondersError(subject);
    const next = (this.roundRobin.get(subject) ?? 0) % candidates.length;
    this.roundRobin.set(subject, next + 1);
    const reply = await (candidates[next].handler as RequestHandler)(roundTrip(data), { ...headers });
    return roundTrip(reply);
  }

  /** Delivers to one handler per group (each listening context gets the fact once). */
  publish(subject: string, data: unknown, headers: InProcessHeaders): void {
    const byGroup = new Map<string, Subscription>();
    for (const s of this.subscriptions.get(subject) ?? []) {
      if (s.kind === 'event' && !byGroup.has(s.group)) byGroup.set(s.group, s);
    }
    for (const s of byGroup.values()) {
      // Events are fire and forget, as on NATS: a failing listener never reaches the publisher.
      queueMicrotask(() => void (s.handler as EventHandler)(roundTrip(data), { ...headers }).catch(() => undefined));
    }
  }
}

function roundTrip(value: unknown): unknown {
  return value === undefined ? undefined : JSON.parse(JSON.stringify(value));
}
