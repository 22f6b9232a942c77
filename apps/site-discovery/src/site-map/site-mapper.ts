import { PLATFORM_CONFIG, type PlatformConfig } from '@lib/config';
import type { MapSiteCommand, MapSiteResult } from '@lib/contracts';
import { SimpleFetcher } from '@lib/http-fetch';
import { TargetGuard } from '@lib/target-guard';
import { Inject, Injectable } from '@nestjs/common';
import { vettedStart } from '../scope/start-url';
import { FetchGate } from './fetch-gate';
import { SiteMapRun } from './site-map-run';

/** POST /v1/map's work: one SiteMapRun per call, sharing this process's fetch gate. */
@Injectable()
export class SiteMapper {
  constructor(
    private readonly fetcher: SimpleFetcher,
    private readonly guard: TargetGuard,
    private readonly gate: FetchGate,
    @Inject(PLATFORM_CONFIG) private readonly config: PlatformConfig,
  ) {}

  async map(command: MapSiteCommand): Promise<MapSiteResult> {
    const request = command.request;
    const start = await vettedStart(request, command.robots_override_allowed, this.guard);
    const run = new SiteMapRun(start, request, {
      fetcher: this.fetcher,
      gate: this.gate,
      hostConcurrency: this.config.discoveryHostConcurrency,
    });
    return run.run();
  }
}
