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

/** The target is not a public http(s) URL; never fetched, never charged (HTTP 422). */
export class TargetBlockedError extends AppError {
  readonly code = 'target.blocked';
  constructor(
    readonly reason: TargetBlockReason,
    message: string,
  ) {
    super(message, { reason });
  }
}
