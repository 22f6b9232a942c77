import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';

/** Header carrying the correlation id over HTTP (in and out) and in message headers. */
export const CORRELATION_HEADER = 'x-request-id';

interface CorrelationScope {
  correlationId: string;
}

const storage = new AsyncLocalStorage<CorrelationScope>();

/** Runs `fn` with a correlation id that every log line and outgoing message inside it carries. */
export function withCorrelationId<T>(correlationId: string | undefined, fn: () => T): T {
  return storage.run({ correlationId: correlationId || randomUUID() }, fn);
}

export function currentCorrelationId(): string | undefined {
  return storage.getStore()?.correlationId;
}

/** Accepts a client-supplied id only when it is short and printable, so logs cannot be forged. */
export function sanitizeCorrelationId(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  return /^[A-Za-z0-9._:-]{1,128}$/.test(value) ? value : undefined;
}
