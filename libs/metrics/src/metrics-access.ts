import { timingSafeEqual } from 'node:crypto';

/** Whether `authorization` carries the metrics token (constant-time comparison). */
export function carriesMetricsToken(authorization: string | undefined, metricsToken: string | null): boolean {
  if (!metricsToken || !authorization) return false;
  const match = /^Bearer\s+(\S+)$/i.exec(authorization.trim());
  if (!match) return false;
  const given = Buffer.from(match[1]);
  const expected = Buffer.from(metricsToken);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
