import {
  BaseRpcContext,
  ClientProxy,
  type CustomTransportStrategy,
  type MessageHandler,
  type ReadPacket,
  Server,
  type WritePacket,
} from '@nestjs/microservices';
import { CORRELATION_HEADER, withCorrelationId } from '@lib/logging';
import { lastValueFrom, type Observable } from 'rxjs';
import { type InProcessBus, type InProcessHeaders } from './in-process-bus';

/** What a caller hands to ClientProxy.send/emit in the embedded runtime: payload plus headers. */
export class InProcessRecord<T = unknown> {
  constructor(
    readonly data: T,
    readonly headers: InProcessHeaders,
  ) {}
}

/** Mirrors NatsContext: handlers read headers with `ctx.getHeaders().get(name)` in both runtimes. */
export class InProcessContext extends BaseRpcContext<[string, Map<string, string>]> {
  getSubject(): string {
    return this.args[0];
  }
  getHeaders(): Map<string, string> {
    return this.args[1];
  }
}

/** NestJS server side of the in-process transport; one instance per bounded context. */
export class InProcessServer extends Server implements CustomTransportStrategy {
  private unsubscribers: Array<() => void> = [];

  constructor(
    private readonly bus: InProcessBus,
    private readonly group: string,
  ) {
    super();
  }

  listen(callback: () => void): void {
    for (const [pattern, handler] of this.messageHandlers) {
      const kind = handler.isEventHandler ? 'event' : 'request';
      // The handler is taken here, once: Nest's getHandlerByPattern would JSON.parse the pattern on
      // every message, and for a subject that is not JSON that throws (1.7 % of the event loop
      // under load, before the garbage its stack traces leave).
      this.unsubscribers.push(
        this.bus.subscribe(pattern, this.group, kind, (data, headers) => this.dispatch(pattern, handler, data, headers)),
      );
    }
    callback();
  }

  close(): void {
    this.unsubscribers.forEach((unsubscribe) => unsubscribe());
    this.unsubscribers = [];
  }

  on(): void {
    // The in-process transport has no connection events to subscribe to.
  }

  unwrap<T>(): T {
    return this.bus as T;
  }

  /**
   * Runs the handler inside the correlation scope its headers carry (a new id when they carry
   * none). Here rather than in an interceptor, as NATS does it (CorrelationInterceptor): Nest's
   * interceptor consumer makes every message pay two AsyncResource.bind calls, each making two
   * deprecation wrappers on Node 20, and an rxjs chain — 3.3 % of the event loop at 16 sync scrapes
   * in flight, for what one AsyncLocalStorage.run does.
   */
  private dispatch(pattern: string, handler: MessageHandler, data: unknown, headers: InProcessHeaders): Promise<unknown> {
    return withCorrelationId(headers[CORRELATION_HEADER], () => this.handle(pattern, handler, data, headers));
  }

  private async handle(pattern: string, handler: MessageHandler, data: unknown, headers: InProcessHeaders): Promise<unknown> {
    const ctx = new InProcessContext([pattern, new Map(Object.entries(headers))]);
    const result = this.transformToObservable(await handler(data, ctx));
    if (handler.isEventHandler) {
      await lastValueFrom(result, { defaultValue: undefined });
      return undefined;
    }
    return new Promise((resolve, reject) => {
      let last: unknown;
      this.send(result as Observable<unknown>, (packet: WritePacket) => {
        if (packet.err !== undefined && packet.err !== null) return reject(packet.err);
        if (packet.response !== undefined) last = packet.response;
        if (packet.isDisposed) resolve(last);
        return undefined;
      });
    });
  }
}

/** NestJS client side of the in-process transport. */
export class InProcessClient extends ClientProxy {
  constructor(private readonly bus: InProcessBus) {
    super();
  }

  async connect(): Promise<void> {
    // Nothing to connect to: the bus lives in this process.
  }

  close(): void {
    // Nothing to release.
  }

  unwrap<T>(): T {
    return this.bus as T;
  }

  protected publish(packet: ReadPacket, callback: (packet: WritePacket) => void): () => void {
    const { data, headers } = unwrapRecord(packet.data);
    let cancelled = false;
    this.bus.request(this.normalizePattern(packet.pattern), data, headers).then(
      (response) => !cancelled && callback({ response, isDisposed: true }),
      (err: unknown) => !cancelled && callback({ err: err instanceof Error ? { message: err.message, name: err.name } : err }),
    );
    return () => {
      cancelled = true;
    };
  }

  protected async dispatchEvent<T = unknown>(packet: ReadPacket): Promise<T> {
    const { data, headers } = unwrapRecord(packet.data);
    this.bus.publish(this.normalizePattern(packet.pattern), data, headers);
    return undefined as T;
  }
}

function unwrapRecord(value: unknown): { data: unknown; headers: InProcessHeaders } {
  return value instanceof InProcessRecord ? { data: value.data, headers: value.headers } : { data: value, headers: {} };
}
