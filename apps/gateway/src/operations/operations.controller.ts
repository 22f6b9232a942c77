import { PLATFORM_CONFIG, PlatformConfig } from '@lib/config';
import { AdminOnlyError, AuthenticationRequiredError, InvalidTokenError } from '@lib/errors';
import { carriesMetricsToken, platformMetrics } from '@lib/metrics';
import { drainState } from '@lib/runtime';
import { Controller, Get, Inject, Req, Res } from '@nestjs/common';
import { ApiOperation, ApiProperty, ApiResponse, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { bearerTokenOf } from '../clients/api-token';
import { Access, Probe } from '../admission/route-access';
import { Fails, Returns } from '../openapi/operation-contract';

export class ProbeDto {
  @ApiProperty({ enum: ['ok', 'draining'] })
  status: 'ok' | 'draining';
}

/**
 * What Kubernetes and Prometheus ask the gateway (docs/operations.md): liveness, readiness (false
 * while draining after SIGTERM) and the process's metrics. Probes skip rate limiting: a node's
 * kubelet probes every pod from one address.
 */
@ApiTags('operations')
@Controller()
export class OperationsController {
  constructor(@Inject(PLATFORM_CONFIG) private readonly config: PlatformConfig) {}

  @Get('livez')
  @Probe()
  @ApiOperation({ summary: 'Liveness: 200 while the process serves HTTP (no dependency checks; a restart would fix nothing else).' })
  @Returns(200, ProbeDto, { description: 'The process serves HTTP.' })
  livez(): ProbeDto {
    return { status: 'ok' };
  }

  @Get('readyz')
  @Probe()
  @ApiOperation({
    summary:
      'Readiness: 200 while the gateway takes new requests, 503 from SIGTERM on (it drains for DRAIN_SECONDS before it stops accepting them).',
  })
  @Returns(200, ProbeDto, { description: 'Ready for traffic.' })
  @ApiServiceUnavailableResponse({ type: ProbeDto, description: 'Draining: take it out of the endpoints.' })
  readyz(@Res({ passthrough: true }) reply: FastifyReply): ProbeDto {
    if (!drainState.draining) return { status: 'ok' };
    reply.status(503);
    return { status: 'draining' };
  }

  @Get('metrics')
  @Access('public')
  @Fails('auth.missing_token', 'auth.invalid_token', 'auth.admin_only')
  @ApiOperation({
    summary:
      'Prometheus metrics of this process (text exposition). Needs Authorization: Bearer <METRICS_TOKEN>, or the administrator token when METRICS_TOKEN is unset.',
  })
  @ApiResponse({ status: 200, description: 'Prometheus text format 0.0.4.', content: { 'text/plain': { schema: { type: 'string' } } } })
  async metrics(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const authorization = request.headers.authorization;
    if (!carriesMetricsToken(authorization, this.config.metricsToken)) {
      const client = request.admission?.client ?? null;
      if (!client) {
        throw bearerTokenOf(authorization)
          ? new InvalidTokenError('The bearer token is neither METRICS_TOKEN nor a valid API token.')
          : new AuthenticationRequiredError('GET /metrics needs Authorization: Bearer <METRICS_TOKEN> (or the administrator token).');
      }
      if (!client.isAdmin) throw new AdminOnlyError('GET /metrics is for METRICS_TOKEN or the administrator client only.');
    }
    const { contentType, body } = await platformMetrics.exposition();
    await reply.header('content-type', contentType).send(body);
  }
}
