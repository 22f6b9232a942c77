import { PLATFORM_CONFIG, type PlatformConfig } from '@lib/config';
import type { MapSiteCommand, MapSiteResult } from '@lib/contracts';
import { SimpleFetcher } from '@lib/http-fetch';
import { TargetBlockedError, TargetGuard } from '@lib/target-guard';
import { Inject, Injectable } from '@nestjs/common';
import { RobotsOverrideRefusedError } from '../site-discovery.errors';
import { normalUrl } from '../url-normal-form/url-normal-form';
import { FetchGate } from './fetch-gate';
import { SiteMapRun } from './site-map-run';

/** POST /v1/map's work: one SiteMapRun per call, sharing this process's fetch gate. */
@Injectable()
export class SiteMapper {
  private readonly gate: FetchGate;

  constructor(
    private readonly fetcher: SimpleFetcher,
    private readonly guard: TargetGuard,
    @Inject(PLATFORM_CONFIG) private readonly config: PlatformConfig,
  ) {
    this.gate = new FetchGate(config.discoveryConcurrency);
  }

  async map(command: MapSiteCommand): Promise<MapSiteResult> {
    const request = command.request;
    if (request.ignore_robots && !command.robots_override_allowed)
      throw new RobotsOverrideRefusedError(
        'ignore_robots is not available on this platform (the operator has not set IGNORE_ROBOTS_ALLOWED).',
      );
    const start = normalUrl(request.url);
    if (!start) throw new TargetBlockedError('malformed_url', `"${request.url.slice(0, 200)}" is not a valid http(s) URL.`);
    // The start URL is refused before any work when it is not a public target (422, like a scrape).
    await this.guard.vet(start.url);
    const run = new SiteMapRun(start, request, {
      fetcher: this.fetcher,
      gate: this.gate,
      hostConcurrency: this.config.discoveryHostConcurrency,
    });
    return run.run();
  }
}
