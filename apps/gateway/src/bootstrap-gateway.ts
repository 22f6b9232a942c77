import type { PlatformConfig } from '@lib/config';
import { CORRELATION_HEADER, createRootLogger, NestPinoLogger, sanitizeCorrelationId } from '@lib/logging';
import { createServerOptions, type InProcessBus, OpsEventPublisher, subscriptionsRegistered } from '@lib/messaging';
import { platformMetrics } from '@lib/metrics';
import { announceServiceStarted, type Clock, withPlatformModules } from '@lib/runtime';
import fastifyHelmet from '@fastify/helmet';
import { NestFactory } from '@nestjs/core';
import { installDocumentUploadParser } from './documents/document-upload.parser';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { RequestAdmission } from './admission/request-admission';
import { isConsoleRoute, locateConsoleBuild, serveConsole } from './console/console-site';
import { installRequestCorrelation } from './admission/request-correlation';
import { USAGE_HEADERS } from './admission/usage-headers';
import { type BootstrapToken, ClientBootstrap } from './clients/client-bootstrap';
import { GatewayModule } from './gateway.module';
import { answerClientError, answerRouterError } from './http-errors/connection-errors';
import { HttpErrorFilter } from './http-errors/http-error.filter';
import { installJsonBodyParser } from './http-errors/json-body.parser';
import { RequestValidationPipe } from './http-errors/request-validation.pipe';
import type { OpenAPIObject } from '@nestjs/swagger';
import { buildOpenApiDocument } from './openapi/openapi-document';
import { OPENAPI_DOCUMENT } from './openapi/openapi.controller';

export interface RunningGateway {
  app: NestFastifyApplication;
  url: string;
  bootstrapTokens: BootstrapToken[];
  /** Every route Fastify registered (method and path), to prove the OpenAPI description covers them. */
  routes: Array<{ method: string; path: string }>;
}

/** Creates and starts the gateway's HTTP server; the caller owns shutdown (app.close()). */
export async function startGateway(config: PlatformConfig, bus?: InProcessBus, clock?: Clock): Promise<RunningGateway> {
  const rootLogger = createRootLogger('gateway', config.logLevel);
  const adapter = new FastifyAdapter({
    bodyLimit: config.bodyLimitBytes,
    trustProxy: config.trustProxy,
    logger: false,
    genReqId: (req: IncomingMessage) => sanitizeCorrelationId(req.headers[CORRELATION_HEADER]) ?? randomUUID(),
    // Without this, a slow client could hold a connection (and a sync scrape slot) forever.
    requestTimeout: 600_000,
    clientErrorHandler: answerClientError,
    frameworkErrors: answerRouterError,
  });
  const app = await NestFactory.create<NestFastifyApplication>(withPlatformModules('gateway', GatewayModule, config, bus, clock), adapter, {
    logger: new NestPinoLogger(rootLogger),
    bufferLogs: false,
    // Body parsing is ours (installJsonBodyParser): JSON only, errors with stable codes.
    bodyParser: false,
  });
  // Security headers on every response (an API: nothing may frame, sniff or embed it), and
  // cross-origin access only for the origins the operator lists (none by default).
  await app.register(fastifyHelmet as never, {
    contentSecurityPolicy: {
      useDefaults: false,
      directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"], baseUri: ["'none'"], formAction: ["'none'"] },
    },
    frameguard: { action: 'deny' },
    crossOriginResourcePolicy: { policy: 'same-site' },
    strictTransportSecurity: { maxAge: 31_536_000, includeSubDomains: true },
  });
  if (config.corsOrigins.length > 0) {
    app.enableCors({
      origin: config.corsOrigins.includes('*') ? '*' : config.corsOrigins,
      methods: ['GET', 'POST', 'PUT', 'DELETE'],
      allowedHeaders: ['authorization', 'content-type', 'idempotency-key', 'x-request-id'],
      exposedHeaders: [
        'x-request-id',
        ...Object.keys(USAGE_HEADERS).map((name) => name.toLowerCase()),
        'retry-after',
        'idempotency-replayed',
      ],
      maxAge: 600,
    });
  }
  app.useGlobalFilters(new HttpErrorFilter());
  app.useGlobalPipes(new RequestValidationPipe());

  const admission = app.get(RequestAdmission);
  const fastify = app.getHttpAdapter().getInstance();
  const routes: RunningGateway['routes'] = [];
  fastify.addHook('onRoute', (route) => {
    // The console is a static site over the API, not an operation of it.
    if (isConsoleRoute(route.url)) return;
    for (const method of [route.method].flat()) if (method !== 'HEAD') routes.push({ method, path: route.url });
  });
  // First of the request hooks: everything after it runs in the request's correlation scope.
  installRequestCorrelation(fastify);
  installJsonBodyParser(fastify);
  installDocumentUploadParser(fastify, config.documentMaxBytes);
  serveConsole(fastify, locateConsoleBuild());
  fastify.decorateRequest('admission', null as never);
  // Admission runs before body parsing: auth and rate limits apply even to malformed requests.
  fastify.addHook('onRequest', async (request) => admission.admit(request));
  fastify.addHook('onSend', async (request, reply, payload) => {
    admission.writeUsageHeaders(request, reply);
    return payload;
  });
  fastify.addHook('onResponse', async (request, reply) => {
    // Route patterns, never raw URLs: the label set stays bounded whatever clients ask for.
    const route = request.routeOptions?.url ?? 'unmatched';
    platformMetrics.httpRequests.inc({ method: request.method, route, status: String(reply.statusCode) });
    platformMetrics.httpDuration.observe({ method: request.method, route }, reply.elapsedTime / 1000);
    rootLogger.info(
      {
        correlation_id: request.id,
        method: request.method,
        url: request.url,
        status: reply.statusCode,
        ms: Math.round(reply.elapsedTime),
        client: request.admission?.client?.id ?? null,
      },
      'request',
    );
  });

  // Events for the gateway's caches: every replica subscribes (fan-out), none answers requests.
  const eventListener = app.connectMicroservice(createServerOptions('gateway', { natsUrl: config.natsUrl, bus }, { fanOut: true }));
  await app.startAllMicroservices();
  await subscriptionsRegistered(eventListener, { natsUrl: config.natsUrl, bus });
  await app.init();
  app.get<{ current: OpenAPIObject | null }>(OPENAPI_DOCUMENT).current = buildOpenApiDocument(app);
  await app.listen(config.port, config.host);
  announceServiceStarted(app.get(OpsEventPublisher), 'gateway', config);
  const address = fastify.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  return { app, url: `http://${host}:${port}`, bootstrapTokens: app.get(ClientBootstrap).tokens, routes };
}
