import { Controller, Get, Res } from '@nestjs/common';
import { ApiExtraModels, ApiOperation, ApiProperty, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { Access } from '../admission/route-access';
import { Returns } from '../openapi/operation-contract';
import { DependencyCheckDto, HealthDto, ServiceHealthDto } from './health.dto';
import { PlatformHealth } from './platform-health';

export class LivenessDto {
  @ApiProperty({ enum: ['ok'] })
  status: 'ok';
}

@ApiTags('health')
@ApiExtraModels(DependencyCheckDto, ServiceHealthDto)
@Controller('v1/health')
export class HealthController {
  constructor(private readonly health: PlatformHealth) {}

  @Get()
  @Access('public')
  @ApiOperation({ summary: 'Health of the platform: database, transport and every bounded context. No authentication.' })
  @Returns(200, HealthDto, { description: 'Everything is up.' })
  @ApiServiceUnavailableResponse({ type: HealthDto, description: 'A dependency or context is down.' })
  async check(@Res({ passthrough: true }) reply: FastifyReply): Promise<HealthDto> {
    const report = await this.health.report();
    // Like every 503 of the API: when to look again (a restarted dependency is back within seconds).
    if (report.status !== 'ok') reply.status(503).header('retry-after', '5');
    return report;
  }

  @Get('live')
  @Access('public')
  @ApiOperation({ summary: 'Liveness: 200 while the gateway process serves HTTP (no dependency checks).' })
  @Returns(200, LivenessDto, { description: 'The gateway serves HTTP.' })
  live(): LivenessDto {
    return { status: 'ok' };
  }
}
