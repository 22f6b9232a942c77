import { AppError } from '@lib/errors';

/** Why a target was refused (spec 2.12 `blocked_urls[].reason`). */
export const TARGET_BLOCK_REASONS = [
  'private_ip',
  'dns_failed',
  'blocked_hostname',
  'invalid_protocol',
  'invalid_port',
  'malformed_url',
  'blocked',
] as const;
export type TargetBlockReason = (typeof TARGET_BLOCK_REASONS)[number];

/**
 * The target is not a public http(s) URL; never fetched, never charged (HTTP 422 target_blocked):
 * the URL names a target that is refused (private, loopback, a blocked host or port). Its reason is
 * spec 2.12's `blocked_urls[].reason`.
 */
export class TargetBlockedError extends AppError {
  readonly code: 'target.blocked' | 'target.invalid_url' = 'target.blocked';
  constructor(
    readonly reason: TargetBlockReason,
    message: string,
  ) {
    super(message, { reason });
  }
}

/**
 * The text is no http(s) URL at all ("not a url", "ftp://…", no host): malformed, not blocked
 * (HTTP 422 invalid_url). A TargetBlockedError still, so a collection lists it under
 * `blocked_urls` with its reason as spec 2.12 says.
 */
export class TargetUrlInvalidError extends TargetBlockedError {
  override readonly code = 'target.invalid_url';
  constructor(reason: 'malformed_url' | 'invalid_protocol', message: string) {
    super(reason, message);
  }
}
