import { createHmac, timingSafeEqual } from 'node:crypto';

export interface WebhookHeaders {
  /** X-Service-Timestamp: Unix seconds when the delivery was signed. */
  timestamp: string | null | undefined;
  /** X-Service-Signature: `sha256=<hex>`. */
  signature: string | null | undefined;
}

export type WebhookRejection = 'missing_headers' | 'malformed_signature' | 'stale_timestamp' | 'signature_mismatch';

export class WebhookVerificationError extends Error {
  constructor(
    readonly reason: WebhookRejection,
    message: string,
  ) {
    super(message);
    this.name = 'WebhookVerificationError';
  }
}

export interface VerifyOptions {
  /** Your webhook secret (`GET /v1/webhooks/secret`), `whsec_…`. */
  secret: string;
  headers: WebhookHeaders;
  /** The body exactly as received, before any JSON parsing. */
  rawBody: string | Uint8Array;
  /** How old (or how far in the future) a timestamp may be; default 300 s (replay window). */
  toleranceSeconds?: number;
  /** Now, in ms (tests). */
  now?: number;
}

/**
 * Checks a run-completion webhook (spec 6, operator contract §4): HMAC-SHA256 over
 * `{timestamp}.{raw body}` with your secret, compared in constant time, and a timestamp inside the
 * replay window. Throws WebhookVerificationError with the reason; returns the parsed event.
 */
export function verifyWebhook(options: VerifyOptions): unknown {
  const { timestamp, signature } = options.headers;
  if (!timestamp || !signature)
    throw new WebhookVerificationError('missing_headers', 'X-Service-Timestamp and X-Service-Signature are both required.');
  const match = /^sha256=([0-9a-f]{64})$/i.exec(signature.trim());
  if (!match) throw new WebhookVerificationError('malformed_signature', 'X-Service-Signature must be sha256=<64 hex digits>.');
  const sentAt = Number(timestamp);
  const tolerance = options.toleranceSeconds ?? 300;
  const now = (options.now ?? Date.now()) / 1000;
  if (!Number.isInteger(sentAt) || Math.abs(now - sentAt) > tolerance)
    throw new WebhookVerificationError(
      'stale_timestamp',
      `The timestamp is outside the ${tolerance} s window (a replay, or a clock far off).`,
    );
  const body = typeof options.rawBody === 'string' ? Buffer.from(options.rawBody, 'utf8') : Buffer.from(options.rawBody);
  const expected = createHmac('sha256', options.secret).update(`${timestamp}.`).update(body).digest();
  const given = Buffer.from(match[1]!, 'hex');
  if (given.length !== expected.length || !timingSafeEqual(given, expected))
    throw new WebhookVerificationError('signature_mismatch', 'The signature does not match this body and secret.');
  return JSON.parse(body.toString('utf8'));
}
