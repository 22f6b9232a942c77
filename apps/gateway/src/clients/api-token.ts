import { createHash, randomBytes } from 'node:crypto';

/**
 * Tokens carry 192 random bits, so a fast hash is enough to store them safely (no dictionary to
 * attack, unlike passwords) and keeps the per-request lookup cheap. Only the hash is stored.
 */
export function issueApiToken(prefix: string): string {
  return `${prefix}_${randomBytes(24).toString('base64url')}`;
}

export function hashApiToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** Reads the bearer token from an Authorization header; undefined when absent or not Bearer. */
export function bearerTokenOf(header: string | string[] | undefined): string | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  if (!value) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(value);
  return match?.[1];
}
