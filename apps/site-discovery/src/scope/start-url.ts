import type { TargetGuard } from '@lib/target-guard';
import { TargetUrlInvalidError } from '@lib/target-guard';
import { RobotsOverrideRefusedError } from '../site-discovery.errors';
import { type NormalUrl, normalUrl } from '@lib/url-normal-form';

/**
 * Where a map or crawl starts, checked before any work: ignore_robots only where the operator allows
 * it (403), the URL in its normal form, and a public target by the SSRF guard (422, like a scrape).
 */
export async function vettedStart(
  request: { url: string; ignore_robots?: boolean },
  robotsOverrideAllowed: boolean,
  guard: TargetGuard,
): Promise<NormalUrl> {
  if (request.ignore_robots && !robotsOverrideAllowed)
    throw new RobotsOverrideRefusedError(
      'ignore_robots is not available on this platform (the operator has not set IGNORE_ROBOTS_ALLOWED).',
    );
  const start = normalUrl(request.url);
  if (!start) throw new TargetUrlInvalidError('malformed_url', `"${request.url.slice(0, 200)}" is not a valid http(s) URL.`);
  await guard.vet(start.url);
  return start;
}
