import type { EventMap, EventSubject, ReplyOf, RequestOf, RequestSubject } from '@lib/contracts';
import { DependencyUnavailableError, isSerializedAppError, RemoteAppError, TransportTimeoutError } from '@lib/errors';
import { CORRELATION_HEADER, currentCorrelationId } from '@lib/logging';
import { Logger } from '@nestjs/common';
import { firstValueFrom, timeout, TimeoutError } from 'rxjs';
import type { TransportClient } from './transport.factory';

export interface RequestOptions {
  timeoutMs?: number;
  /** Overrides the ambient correlation id (the gateway passes the HTTP request's id). */
  correlationId?: string;
}

/**
 * The typed way for a context to talk to another: only subjects of the contracts' maps, with
 * their payload types. Remote domain errors come back as RemoteAppError with the original code.
 */
export class MessageBus {
  private readonly logger = new Logger('MessageBus');

  constructor(
    private readonly transport: TransportClient,
    private readonly defaultTimeoutMs: number,
  ) {}

  get kind(): TransportClient['kind'] {
    return this.transport.kind;
  }

  async connect(): Promise<void> {
    await this.transport.client.connect();
  }

  async close(): Promise<void> {
    await this.transport.client.close();
  }

  /** Round trip to the broker (NATS flush); the in-process bus is always reachable. */
  async ping(): Promise<void> {
    if (this.transport.kind !== 'nats') return;
    await this.transport.client.unwrap<{ flush(): Promise<void> }>().flush();
  }

  async request<S extends RequestSubject>(subject: S, payload: RequestOf<S>, options: RequestOptions = {}): Promise<ReplyOf<S>> {
    const timeoutMs = options.timeoutMs ?? this.defaultTimeoutMs;
    const record = this.transport.wrap(payload, this.headers(options.correlationId));
    try {
      return await firstValueFrom(this.transport.client.send<ReplyOf<S>>(subject, record).pipe(timeout(timeoutMs)));
    } catch (error) {
      throw translateTransportError(error, subject, timeoutMs);
    }
  }

  /** Publishes a fact, at most once. A failed publish is logged, never thrown into the caller. */
  emit<S extends EventSubject>(subject: S, payload: EventMap[S], options: Pick<RequestOptions, 'correlationId'> = {}): void {
    this.transport.client.emit(subject, this.transport.wrap(payload, this.headers(options.correlationId))).subscribe({
      error: (error: unknown) => this.logger.warn(`publishing ${subject} failed: ${error instanceof Error ? error.message : String(error)}`),
    });
  }

  private headers(correlationId?: string): Record<string, string> {
    const id = correlationId ?? currentCorrelationId();
    return id ? { [CORRELATION_HEADER]: id } : {};
  }
}

function translateTransportError(error: unknown, subject: string, timeoutMs: number): Error {
  if (error instanceof TimeoutError) {
    return new TransportTimeoutError(`no reply on ${subject} within ${timeoutMs} ms`, { subject });
  }
  if (isSerializedAppError(error)) return new RemoteAppError(error);
  if (typeof error === 'object' && error !== null && (error as { name?: string }).name === 'NoRespondersError') {
    return new DependencyUnavailableError(`no service is listening on ${subject}`, { subject });
  }
  const message = error instanceof Error ? error.message : typeof error === 'object' && error !== null ? String((error as { message?: unknown }).message ?? 'unknown error') : String(error);
  return new DependencyUnavailableError(`transport failure on ${subject}: ${message}`, { subject });
}
