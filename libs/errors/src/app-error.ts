/**
 * Base class of every domain error. A stable `code` (`<context>.<reason>`) is what crosses the
 * transport and what the gateway maps to an HTTP status (see apps/gateway/src/http-errors).
 * Never branch on `message`; it is for humans.
 */
export abstract class AppError extends Error {
  abstract readonly code: string;

  constructor(
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = new.target.name;
  }

  toJSON(): SerializedAppError {
    return { code: this.code, message: this.message, details: this.details };
  }
}

/** The wire form of an AppError, as it travels inside an RPC error reply. */
export interface SerializedAppError {
  code: string;
  message: string;
  details?: Record<string, unknown>;
}

export function isSerializedAppError(value: unknown): value is SerializedAppError {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as SerializedAppError).code === 'string' &&
    typeof (value as SerializedAppError).message === 'string'
  );
}

/**
 * An error rebuilt on the caller's side from a SerializedAppError, keeping its code, so that a
 * domain error raised in billing-meter reaches the gateway's status table intact.
 */
export class RemoteAppError extends AppError {
  readonly code: string;

  constructor(serialized: SerializedAppError) {
    super(serialized.message, serialized.details);
    this.code = serialized.code;
  }
}
