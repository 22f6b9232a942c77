import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

export class DependencyCheckDto {
  @ApiProperty({ enum: ['ok', 'down'] })
  status: 'ok' | 'down';
  @ApiProperty({ description: 'Round-trip time of the check, ms.' })
  latency_ms: number;
  @ApiPropertyOptional()
  error?: string;
  @ApiPropertyOptional({ description: 'For the transport check: nats or in-process.' })
  kind?: string;
}

export class ServiceHealthDto extends DependencyCheckDto {
  @ApiPropertyOptional({ type: 'object', additionalProperties: { $ref: '#/components/schemas/DependencyCheckDto' } })
  checks?: Record<string, DependencyCheckDto>;
}

export class HealthDto {
  @ApiProperty({ enum: ['ok', 'degraded'], description: '`degraded` (HTTP 503) when any dependency or context is down.' })
  status: 'ok' | 'degraded';
  @ApiProperty({ example: '0.1.0' })
  version: string;
  @ApiProperty({ enum: ['embedded', 'distributed'] })
  runtime: 'embedded' | 'distributed';
  @ApiProperty({ description: 'Seconds since this gateway process started.' })
  uptime_s: number;
  @ApiProperty({
    description: 'Dependencies the gateway itself uses: database and transport.',
    type: 'object',
    additionalProperties: { $ref: '#/components/schemas/DependencyCheckDto' },
  })
  checks: Record<string, DependencyCheckDto>;
  @ApiProperty({
    description: 'Each bounded context, asked over the transport.',
    type: 'object',
    additionalProperties: { $ref: '#/components/schemas/ServiceHealthDto' },
  })
  services: Record<string, ServiceHealthDto>;
}
