import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';

/**
 * Builds the OpenAPI description from the controllers and DTOs themselves, so it cannot drift
 * from the code. Every response carries the usage headers of spec section 8.
 */
export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('Scraping API')
    .setDescription(
      'Fetch web pages as HTML or markdown, with extraction, browser rendering, batches and webhooks. ' +
        'Every authenticated call needs `Authorization: Bearer <API_KEY>`. Every response carries X-RateLimit-Limit, ' +
        'X-RateLimit-Remaining, X-RateLimit-Reset (Unix seconds), X-Quota-Limit (0 = unlimited), X-Quota-Used, ' +
        'X-Quota-Remaining and X-Credits-Charged. Errors: `{detail, error_code}`; validation errors (422): `{detail: [{loc, msg, type}]}`.',
    )
    .setVersion('0.1.0')
    .addBearerAuth()
    .build();
  const document = SwaggerModule.createDocument(app, config);
  const usageHeaders = {
    'X-RateLimit-Limit': { schema: { type: 'integer' }, description: 'Requests per minute allowed.' },
    'X-RateLimit-Remaining': { schema: { type: 'integer' }, description: 'Requests left in the window.' },
    'X-RateLimit-Reset': { schema: { type: 'integer' }, description: 'Unix timestamp when the window resets.' },
    'X-Quota-Limit': { schema: { type: 'integer' }, description: 'Monthly credit quota; 0 means unlimited.' },
    'X-Quota-Used': { schema: { type: 'integer' }, description: 'Credits used this month.' },
    'X-Quota-Remaining': { schema: { type: 'integer' }, description: 'Credits remaining (0 when unlimited).' },
    'X-Credits-Charged': { schema: { type: 'integer' }, description: 'Credits charged for this request.' },
  };
  const errorBody = {
    type: 'object',
    required: ['detail', 'error_code'],
    properties: { detail: { type: 'string' }, error_code: { type: 'string' } },
  };
  const validationBody = {
    type: 'object',
    properties: {
      detail: {
        type: 'array',
        items: {
          type: 'object',
          properties: { loc: { type: 'array', items: { oneOf: [{ type: 'string' }, { type: 'integer' }] } }, msg: { type: 'string' }, type: { type: 'string' } },
        },
      },
    },
  };
  document.components = {
    ...document.components,
    schemas: { ...document.components?.schemas, ErrorBody: errorBody, ValidationErrorBody: validationBody } as never,
  };
  for (const [path, item] of Object.entries(document.paths)) {
    const isPublic = path === '/v1/health' || path === '/v1/health/live' || path === '/v1/plans' || path === '/v1/openapi.json';
    for (const operation of Object.values(item) as Array<{ responses?: Record<string, { headers?: unknown; description?: string; content?: unknown }>; security?: unknown; requestBody?: unknown; parameters?: unknown[] }>) {
      if (!operation || typeof operation !== 'object' || !operation.responses) continue;
      if (isPublic) operation.security = [];
      const errors: Record<string, string> = isPublic ? { '429': 'Rate limit exceeded (Retry-After gives seconds).' } : {
        '401': 'Missing or invalid token.',
        '429': 'Rate limit or monthly quota exceeded (Retry-After gives seconds).',
      };
      for (const [status, description] of Object.entries(errors)) {
        operation.responses[status] ??= { description, content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorBody' } } } };
      }
      if (operation.requestBody !== undefined || (operation.parameters?.length ?? 0) > 0) {
        operation.responses['422'] ??= { description: 'Validation error.', content: { 'application/json': { schema: { $ref: '#/components/schemas/ValidationErrorBody' } } } };
      }
      for (const response of Object.values(operation.responses)) response.headers = { ...usageHeaders, ...(response.headers as object) };
    }
  }
  return document;
}
