import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Operator contract §4: `sha256=<hex HMAC-SHA256(secret, "{timestamp}.{raw body}")>`, the
 * timestamp being the X-Service-Timestamp header (Unix seconds) of the same request.
 */
export function signWebhook(secret: string, timestamp: number, rawBody: string): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.${rawBody}`).digest('hex')}`;
}

/** The receiver's check, as documented in docs/api-guide.md (constant-time compare, 5-minute window). */
export function verifyWebhook(
  secret: string,
  timestampHeader: string,
  rawBody: string,
  signatureHeader: string,
  nowSeconds = Math.floor(Date.now() / 1000),
): boolean {
  const timestamp = Number(timestampHeader);
  if (!Number.isInteger(timestamp) || Math.abs(nowSeconds - timestamp) > 300) return false;
  const expected = Buffer.from(signWebhook(secret, timestamp, rawBody));
  const given = Buffer.from(signatureHeader);
  return expected.length === given.length && timingSafeEqual(expected, given);
}
