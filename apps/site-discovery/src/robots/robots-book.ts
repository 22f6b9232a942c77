import type { FetchedResponse } from '@lib/http-fetch';
import { RobotsPolicy } from './robots-policy';

/** robots.txt is read up to this; a longer file counts as unavailable (RFC 9309 §2.5 asks for 500 KiB). */
export const ROBOTS_MAX_BYTES = 2 * 1024 * 1024;

/** Fetches robots.txt (redirects followed, SSRF-guarded); null or a throw when it could not be fetched. */
export type RobotsFetch = (url: string, maxBodyBytes: number) => Promise<FetchedResponse | null>;

/**
 * The robots.txt of every origin a map or crawl meets, read once each (the first asker fetches it,
 * the others wait for the same answer), by RFC 9309 §2.3.1: 2xx parsed, 4xx no rules, 5xx or no
 * answer everything disallowed. `ignore` (the client's ignore_robots, where allowed) allows all.
 */
export class RobotsBook {
  private readonly policies = new Map<string, Promise<RobotsPolicy>>();

  constructor(
    private readonly fetch: RobotsFetch,
    private readonly ignore: boolean,
    /** Told each origin's Crawl-delay (seconds, capped) as its robots.txt is read. */
    private readonly onCrawlDelay: (host: string, seconds: number | null) => void = () => undefined,
  ) {}

  policyFor(url: URL): Promise<RobotsPolicy> {
    if (this.ignore) return Promise.resolve(RobotsPolicy.allowAll('ignored'));
    let policy = this.policies.get(url.origin);
    if (!policy) {
      policy = this.read(url);
      this.policies.set(url.origin, policy);
    }
    return policy;
  }

  private async read(url: URL): Promise<RobotsPolicy> {
    const robotsUrl = `${url.origin}/robots.txt`;
    const response = await this.fetch(robotsUrl, ROBOTS_MAX_BYTES).catch(() => null);
    let policy: RobotsPolicy;
    if (!response || response.statusCode >= 500) policy = RobotsPolicy.disallowAll();
    else if (response.statusCode >= 300) policy = RobotsPolicy.allowAll('none');
    else policy = RobotsPolicy.parse(robotsUrl, response.body.toString('utf8'));
    this.onCrawlDelay(url.host, policy.crawlDelaySeconds());
    return policy;
  }
}
