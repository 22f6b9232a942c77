import { type EventMap, type EventSubject, REPEATABLE_REQUESTS, type ReplyOf, type RequestOf, type RequestSubject } from '@lib/contracts';
import { DependencyUnavailableError, isSerializedAppError, RemoteAppError, TransportTimeoutError } from '@lib/errors';
import { CORRELATION_HEADER, currentCorrelationId } from '@lib/logging';
import { Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { firstValueFrom, fromEvent, type Subscription, takeUntil, timeout, TimeoutError } from 'rxjs';
import type { TransportClient } from './transport.factory';

/**
 * A value on its way to another context: inline, or — over NATS, above INLINE_PAYLOAD_LIMIT —
 * parked in a JetStream object store (chunked, so NATS's 1 MB message limit never applies).
 */
export type PackedPayload<T> = { inline: T } | { object: string; bytes: number };

export const INLINE_PAYLOAD_LIMIT = 512 * 1024;

/**
 * The envelope of a message whose payload was parked because it would not fit one NATS message:
 * a request (MessageBus.request packs it; the receiver's LargePayloadInterceptor swaps it for the
 * payload before validation) or a reply (the interceptor packs it; MessageBus.request unpacks it).
 * Handlers and payload classes never see it.
 */
export const PARKED_PAYLOAD_KEY = '__parked_payload';
export type ParkedEnvelope = { [PARKED_PAYLOAD_KEY]: { object: string; bytes: number } };

export function isParkedEnvelope(value: unknown): value is ParkedEnvelope {
  const inner = typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[PARKED_PAYLOAD_KEY] : undefined;
  return typeof inner === 'object' && inner !== null && typeof (inner as { object?: unknown }).object === 'string';
}
const TRANSFER_BUCKET = 'transfer-payloads';
// A parked payload nobody collects (its requester died) disappears on its own.
const TRANSFER_TTL_NANOS = 10 * 60 * 1e9;

interface ObjectStoreLike {
  putBlob(meta: { name: string }, data: Uint8Array): Promise<unknown>;
  getBlob(name: string): Promise<Uint8Array | null>;
  delete(name: string): Promise<unknown>;
}

// A repeatable request asked again after an attempt found nobody: 100 ms, doubling to 1 s.
const FIRST_REPEAT_PAUSE_MS = 100;
const MAX_REPEAT_PAUSE_MS = 1000;

export interface RequestOptions {
  timeoutMs?: number;
  /** Overrides the ambient correlation id (the gateway passes the HTTP request's id). */
  correlationId?: string;
  /** Gives up waiting (the reply, if it ever comes, is dropped); the call rejects with the signal's reason. */
  signal?: AbortSignal;
}

/**
 * The typed way for a context to talk to another: only subjects of the contracts' maps, with
 * their payload types. Remote domain errors come back as RemoteAppError with the original code.
 */
export class MessageBus {
  private readonly logger = new Logger('MessageBus');
  private store: Promise<ObjectStoreLike> | null = null;
  /**
   * Whether the broker is reachable now (NATS: the client's last status; in-process: always).
   * While it is not, a request fails at once with 503 rather than waiting its whole timeout in the
   * client's reconnect buffer and ending as a 504 (or being delivered after the outage).
   */
  private reachable = true;
  private reachableSince = performance.now();
  private statusWatch: Subscription | null = null;
  /**
   * Requests waiting for a reply. When the broker goes away their replies cannot be counted on
   * (a reply published during the outage is lost), so they fail at once as an outage rather than
   * waiting out their timeout.
   */
  private readonly waiting = new Set<AbortController>();

  constructor(
    private readonly transport: TransportClient,
    private readonly defaultTimeoutMs: number,
  ) {}

  get kind(): TransportClient['kind'] {
    return this.transport.kind;
  }

  async connect(): Promise<void> {
    await this.transport.client.connect();
    this.reachable = true;
    if (this.transport.kind === 'nats' && !this.statusWatch)
      this.statusWatch = this.transport.client.status.subscribe((status) => {
        const reachable = status === 'connected';
        if (reachable !== this.reachable) this.logger.warn(reachable ? 'NATS reachable again' : `NATS unreachable (${String(status)})`);
        if (reachable && !this.reachable) this.reachableSince = performance.now();
        this.reachable = reachable;
        if (!reachable) for (const waiting of this.waiting) waiting.abort(brokerGone());
      });
  }

  async close(): Promise<void> {
    this.statusWatch?.unsubscribe();
    this.statusWatch = null;
    await this.transport.client.close();
  }

  /** Packs a large reply so it can cross the transport (see PackedPayload). */
  async pack<T>(value: T): Promise<PackedPayload<T>> {
    if (this.transport.kind !== 'nats') return { inline: value };
    const json = Buffer.from(JSON.stringify(value));
    if (json.length <= INLINE_PAYLOAD_LIMIT) return { inline: value };
    const name = randomUUID();
    await (await this.objectStore()).putBlob({ name }, json);
    return { object: name, bytes: json.length };
  }

  /** Opens a packed payload; a parked one is deleted once read. */
  async unpack<T>(packed: PackedPayload<T>): Promise<T> {
    if ('inline' in packed) return packed.inline;
    const store = await this.objectStore();
    const data = await store.getBlob(packed.object);
    if (!data) throw new DependencyUnavailableError(`the transferred payload ${packed.object} is gone (expired or already read)`);
    void store.delete(packed.object).catch(() => undefined);
    return JSON.parse(Buffer.from(data).toString('utf8')) as T;
  }

  private async objectStore(): Promise<ObjectStoreLike> {
    this.store ??= (async () => {
      const nc = this.transport.client.unwrap<{ jetstream(): { views: { os(name: string, opts: object): Promise<ObjectStoreLike> } } }>();
      return nc.jetstream().views.os(TRANSFER_BUCKET, { ttl: TRANSFER_TTL_NANOS });
    })();
    return this.store;
  }

  /** Round trip to the broker (NATS flush); the in-process bus is always reachable. */
  async ping(): Promise<void> {
    if (this.transport.kind !== 'nats') return;
    if (!this.reachable) throw brokerGone();
    await this.transport.client.unwrap<{ flush(): Promise<void> }>().flush();
  }

  /**
   * Sends a request and waits for its reply. A payload too large for one NATS message (a valid
   * 1000-URL collection can exceed 1 MB) travels parked like a large reply; the receiver unpacks it.
   * A request that is safe to repeat (REPEATABLE_REQUESTS) is sent again when an attempt meets no
   * reply or no responder, within the caller's timeout: its replier may have died with it.
   */
  async request<S extends RequestSubject>(subject: S, payload: RequestOf<S>, options: RequestOptions = {}): Promise<ReplyOf<S>> {
    const repeatable = this.transport.kind === 'nats' ? REPEATABLE_REQUESTS[subject] : undefined;
    if (!repeatable) return this.requestOnce(subject, payload, options);
    const giveUpAt = performance.now() + (options.timeoutMs ?? this.defaultTimeoutMs);
    for (let pauseMs = FIRST_REPEAT_PAUSE_MS; ; pauseMs = Math.min(2 * pauseMs, MAX_REPEAT_PAUSE_MS)) {
      const leftMs = giveUpAt - performance.now();
      try {
        return await this.requestOnce(subject, payload, { ...options, timeoutMs: Math.max(100, Math.min(repeatable.attemptMs, leftMs)) });
      } catch (error) {
        // Only a lost request or a missing responder is asked again (while the broker is there);
        // an answer, even an error, is the answer.
        const lost = error instanceof TransportTimeoutError || (error instanceof DependencyUnavailableError && this.reachable);
        if (!lost || options.signal?.aborted || giveUpAt - performance.now() < pauseMs + 100) throw error;
        this.logger.warn(`${subject}: ${error.message}; asking again in ${pauseMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, pauseMs));
      }
    }
  }

  private async requestOnce<S extends RequestSubject>(subject: S, payload: RequestOf<S>, options: RequestOptions): Promise<ReplyOf<S>> {
    const timeoutMs = options.timeoutMs ?? this.defaultTimeoutMs;
    if (!this.reachable) throw brokerGone(`${subject} was not sent`);
    let parked: string | null = null;
    const gone = new AbortController();
    this.waiting.add(gone);
    try {
      const packed = await this.pack(payload);
      let wire: unknown = payload;
      if ('object' in packed) {
        parked = packed.object;
        wire = { [PARKED_PAYLOAD_KEY]: packed } satisfies ParkedEnvelope;
      }
      const record = this.transport.wrap(wire, this.headers(options.correlationId));
      let replies = this.transport.client
        .send<ReplyOf<S>>(subject, record)
        .pipe(timeout(timeoutMs), takeUntil(fromEvent(gone.signal, 'abort')));
      if (options.signal) {
        options.signal.throwIfAborted();
        replies = replies.pipe(takeUntil(fromEvent(options.signal, 'abort')));
      }
      const reply = await firstValueFrom(replies, { defaultValue: undefined as ReplyOf<S> | undefined });
      if (options.signal?.aborted) throw options.signal.reason;
      if (gone.signal.aborted) throw gone.signal.reason;
      return isParkedEnvelope(reply) ? await this.unpack<ReplyOf<S>>(reply[PARKED_PAYLOAD_KEY]) : (reply as ReplyOf<S>);
    } catch (error) {
      if (options.signal?.aborted && error === options.signal.reason) throw error;
      if (gone.signal.aborted && error === gone.signal.reason) throw error;
      // Nobody collected the parked payload: do not leave it for the TTL.
      if (parked)
        void this.objectStore()
          .then((store) => store.delete(parked!))
          .catch(() => undefined);
      throw translateTransportError(error, subject, timeoutMs);
    } finally {
      this.waiting.delete(gone);
    }
  }

  /**
   * Hears every `subject` event from anywhere, as every replica of this context does (no queue
   * group): for state each replica keeps on its own, like which job workers are alive. The payload
   * is not validated here; the listener checks what it uses. Returns what stops listening.
   */
  listenAll<S extends EventSubject>(subject: S, handler: (payload: EventMap[S]) => void): Promise<() => void> {
    return this.transport.listenAll(subject, (payload) => handler(payload as EventMap[S]));
  }

  /** How long the broker has been reachable without a break, ms (0 while it is not). */
  reachableForMs(): number {
    return this.reachable ? performance.now() - this.reachableSince : 0;
  }

  /** Publishes a fact, at most once. A failed publish is logged, never thrown into the caller. */
  emit<S extends EventSubject>(subject: S, payload: EventMap[S], options: Pick<RequestOptions, 'correlationId'> = {}): void {
    this.transport.client.emit(subject, this.transport.wrap(payload, this.headers(options.correlationId))).subscribe({
      error: (error: unknown) =>
        this.logger.warn(`publishing ${subject} failed: ${error instanceof Error ? error.message : String(error)}`),
    });
  }

  private headers(correlationId?: string): Record<string, string> {
    const id = correlationId ?? currentCorrelationId();
    return id ? { [CORRELATION_HEADER]: id } : {};
  }
}

/** The broker is away: 503 with a short Retry-After (the client reconnects every second). */
function brokerGone(what = 'no reply can come'): DependencyUnavailableError {
  return new DependencyUnavailableError(`the message broker is unreachable; ${what}`, { retry_after_seconds: 2 });
}

function translateTransportError(error: unknown, subject: string, timeoutMs: number): Error {
  if (error instanceof TimeoutError) {
    return new TransportTimeoutError(`no reply on ${subject} within ${timeoutMs} ms`, { subject });
  }
  if (isSerializedAppError(error)) return new RemoteAppError(error);
  if (typeof error === 'object' && error !== null && (error as { name?: string }).name === 'NoRespondersError') {
    return new DependencyUnavailableError(`no service is listening on ${subject}`, { subject });
  }
  const message =
    error instanceof Error
      ? error.message
      : typeof error === 'object' && error !== null
        ? String((error as { message?: unknown }).message ?? 'unknown error')
        : String(error);
  return new DependencyUnavailableError(`transport failure on ${subject}: ${message}`, { subject });
}
