import { loadPlatformConfig } from '@lib/config';
import { withPlatformModules } from '@lib/runtime';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import type { OpenAPIObject } from '@nestjs/swagger';
import { GatewayModule } from '../gateway.module';
import { buildOpenApiDocument } from './openapi-document';

/**
 * The document the gateway serves, built without starting anything: Nest's preview mode reads the
 * controllers' metadata and instantiates no provider, so no database, transport or port is needed.
 * `npm run build` writes it for the SDK and the lint; a test proves it equals the served one.
 */
export async function describeApi(): Promise<OpenAPIObject> {
  const config = loadPlatformConfig({ DATA_DIR: '/nonexistent', LOG_LEVEL: 'silent' });
  const app = await NestFactory.create<NestFastifyApplication>(
    withPlatformModules('gateway', GatewayModule, config),
    new FastifyAdapter(),
    { preview: true, logger: false, abortOnError: false },
  );
  try {
    return buildOpenApiDocument(app);
  } finally {
    await app.close();
  }
}
