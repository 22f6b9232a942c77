import { MapSiteCommand, MapSiteResult, SUBJECTS } from '@lib/contracts';
import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { SiteMapper } from './site-mapper';

@Controller()
export class SiteMapController {
  constructor(private readonly mapper: SiteMapper) {}

  @MessagePattern(SUBJECTS.discovery.map)
  map(@Payload() command: MapSiteCommand): Promise<MapSiteResult> {
    return this.mapper.map(command);
  }
}
