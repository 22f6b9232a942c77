import { modelsReferencedByName, RESULT_ERROR_CODES } from '@lib/contracts';
import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, type OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import type {
  OperationObject,
  ParameterObject,
  ReferenceObject,
  ResponseObject,
  SchemaObject,
} from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import { STATUS_CODES } from 'node:http';
import type { RouteAccessLevel } from '../admission/route-access';
import { USAGE_HEADERS } from '../admission/usage-headers';
import { type DomainErrorCode, HTTP_ERROR_TABLE } from '../http-errors/error-status.table';

export const API_VERSION = '0.1.0';

/** An error a response may carry: its public error_code under an HTTP status. */
interface DeclaredError {
  status: number;
  errorCode: string;
}

// Errors no handler raises but any request can meet before or around it: the HTTP parser and
// router (malformed request line, path or headers) and the rate limiter.
const ANY_REQUEST: DeclaredError[] = [
  { status: 400, errorCode: 'bad_request' },
  { status: 400, errorCode: 'bad_url' },
  { status: 408, errorCode: 'request_timeout' },
  { status: 414, errorCode: 'uri_too_long' },
  { status: 431, errorCode: 'request_header_fields_too_large' },
  { status: 429, errorCode: 'rate_limit_exceeded' },
];
// An authenticated route checks the token and asks other contexts over the transport.
const AUTHENTICATED: DomainErrorCode[] = ['auth.missing_token', 'auth.invalid_token', 'transport.unavailable', 'transport.timeout'];
const ADMIN: DomainErrorCode[] = ['auth.admin_only'];
// A JSON body can be malformed, too large or not JSON at all (json-body.parser.ts, bodyLimit).
const WITH_BODY: DeclaredError[] = [
  { status: 400, errorCode: 'invalid_json' },
  { status: 413, errorCode: 'payload_too_large' },
  { status: 415, errorCode: 'unsupported_media_type' },
];
// Statuses answered with Retry-After (http-error.filter.ts).
const RETRY_AFTER_STATUSES = new Set([429, 503]);

/**
 * Builds the OpenAPI description from the controllers, the classes their handlers return and the
 * errors they declare (operation-contract.ts), so it cannot drift from the code. Every operation
 * ends up with every status it can answer, each with its body schema and headers; an operation
 * without a typed success response is a build error, not a gap in the document.
 */
export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('Scraping API')
    .setDescription(
      'Fetch web pages as HTML or markdown, with extraction, browser rendering, screenshots, network capture, batches and signed webhooks. ' +
        'Every call but health, plans and this document needs `Authorization: Bearer <API_KEY>`. ' +
        'Every response carries the usage headers of spec section 8 (X-RateLimit-*, X-Quota-*, X-Credits-Charged); 429 and 503 carry Retry-After (seconds). ' +
        'Errors: `{detail, error_code}`; validation errors: `{detail: [{loc, msg, type}]}` (422, or 400 on collection and report routes). ' +
        '"spec N.N" in this document is section N.N of the API specification, docs/spec/scraping-api-spec.md in the repository.',
    )
    .setVersion(API_VERSION)
    .addServer('/', 'The host serving this document')
    .addBearerAuth({
      type: 'http',
      scheme: 'bearer',
      description: 'A client token (POST /v1/admin/clients), the demo token or the admin token.',
    })
    .build();
  const document = SwaggerModule.createDocument(app, config, {
    operationIdFactory: (controller, method) => `${controller.replace(/Controller$/, '')}_${method}`,
    extraModels: modelsReferencedByName(),
  });
  // package.json says UNLICENSED (not licensed for use by others); npm documents what that means.
  document.info.license = { name: 'UNLICENSED', url: 'https://docs.npmjs.com/cli/configuring-npm/package-json#license' };
  giveNullablesATypeSibling(document);
  const components = (document.components ??= {});
  components.schemas = { ...components.schemas, ...ERROR_SCHEMAS };
  components.headers = {
    ...Object.fromEntries(
      Object.entries(USAGE_HEADERS).map(([name, description]) => [name, { description, schema: { type: 'integer', minimum: 0 } }]),
    ),
    'Retry-After': { description: 'Seconds to wait before retrying.', required: true, schema: { type: 'integer', minimum: 1 } },
  };
  const shared = new SharedResponses();
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of ['get', 'put', 'post', 'delete', 'patch'] as const) {
      const operation = item[method];
      if (operation) completeOperation(method, `${method.toUpperCase()} ${path}`, operation, shared);
    }
  }
  components.responses = shared.components();
  dropUnreferencedSchemas(document);
  return document;
}

/**
 * Keeps only the schemas the operations reach. Response classes register themselves as models when
 * their module loads (response-schema.ts), so a contract no endpoint returns yet would otherwise
 * appear in the document as an unused component.
 */
function dropUnreferencedSchemas(document: OpenAPIObject): void {
  const schemas = document.components?.schemas ?? {};
  const reached = new Set<string>();
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (typeof node !== 'object' || node === null) return;
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string' && value.startsWith('#/components/schemas/')) {
        const name = value.slice('#/components/schemas/'.length);
        if (!reached.has(name)) {
          reached.add(name);
          visit(schemas[name]);
        }
      } else visit(value);
    }
  };
  visit(document.paths);
  visit(document.components?.responses);
  for (const name of Object.keys(schemas)) if (!reached.has(name)) delete schemas[name];
}

type DeclaredOperation = OperationObject & {
  'x-access'?: RouteAccessLevel;
  'x-fails'?: DomainErrorCode[];
  'x-validation-status'?: number;
  /** Success statuses answered without a body (the agent endpoint's 202 to notifications). */
  'x-empty-responses'?: Record<string, string>;
  /** A route that exists to answer 405 (the stateless agent endpoint's GET and DELETE). */
  'x-method-not-allowed'?: boolean;
  /**
   * Statuses a protocol transport inside the handler may answer with its own error body (the MCP
   * transport's JSON-RPC error with id null, McpTransportErrorBody), by status, with why.
   */
  'x-transport-errors'?: Record<string, string>;
  /** Media types the success response answers as text (GET /v1/read's markdown): their schema is a string. */
  'x-text-answers'?: string[];
};

function completeOperation(method: string, name: string, operation: DeclaredOperation, shared: SharedResponses): void {
  const access = operation['x-access'];
  if (!access) throw new Error(`${name}: the handler has no @Access(): every operation says who may call it`);
  const fails = operation['x-fails'] ?? [];
  const validationStatus = operation['x-validation-status'] ?? 422;
  // x-access stays: who may call an operation is part of its contract (the table in docs/api-reference.md reads it).
  const emptyResponses = operation['x-empty-responses'] ?? {};
  const notAllowed = operation['x-method-not-allowed'] === true;
  const transportErrors = operation['x-transport-errors'] ?? {};
  const textAnswers = operation['x-text-answers'] ?? [];
  delete operation['x-text-answers'];
  delete operation['x-transport-errors'];
  delete operation['x-fails'];
  delete operation['x-validation-status'];
  delete operation['x-empty-responses'];
  delete operation['x-method-not-allowed'];
  if (!operation.summary) throw new Error(`${name}: no summary (@ApiOperation)`);
  operation.security = access === 'public' ? [] : [{ bearer: [] }];

  const responses: Record<string, ResponseObject | ReferenceObject | undefined> = operation.responses;
  const successes = Object.keys(responses).filter((status) => status.startsWith('2'));
  if (notAllowed ? successes.length !== 0 || !responses['405'] : successes.length !== 1) {
    throw new Error(
      `${name}: needs exactly one success response (@Returns), or none and a 405 when it only refuses; has ${successes.join(', ') || 'none'}`,
    );
  }
  for (const [status, response] of Object.entries(responses)) {
    if (!response || '$ref' in response || !response.content)
      throw new Error(`${name}: the ${status} response has no schema; declare errors with @Fails(code)`);
  }
  for (const [status, description] of Object.entries(emptyResponses)) responses[status] = { description };
  for (const status of successes) {
    const content = (responses[status] as ResponseObject).content!;
    for (const type of textAnswers) content[type] = { schema: { type: 'string' } };
  }

  const errors: DeclaredError[] = [...ANY_REQUEST];
  const codes: DomainErrorCode[] = [...fails];
  if (access !== 'public') codes.push(...AUTHENTICATED);
  if (access === 'admin') codes.push(...ADMIN);
  // A body is parsed (and refused) on every method that can carry one, declared or not.
  const hasBody = operation.requestBody !== undefined;
  if (method !== 'get') errors.push(...WITH_BODY);
  const parameters = (operation.parameters ?? []).filter((p): p is ParameterObject => !('$ref' in p));
  // The request DTO (body, query) answers at the route's validation status; path parameters are
  // checked for unstorable text before any DTO, at 422.
  const validatedAt = new Set<number>();
  if (hasBody || parameters.some((p) => p.in === 'query')) validatedAt.add(validationStatus);
  if (parameters.some((p) => p.in === 'path')) {
    validatedAt.add(422);
    // A parameter the router cannot take (an encoded NUL, say) leaves the request unrouted: 404 not_found.
    codes.push('resource.not_found');
  }
  let resultUnavailable = false;
  for (const code of codes) {
    if (code === 'results.unavailable') resultUnavailable = true;
    else errors.push({ status: HTTP_ERROR_TABLE[code].status, errorCode: HTTP_ERROR_TABLE[code].errorCode });
  }

  const byStatus = new Map<number, Set<string>>();
  for (const error of errors) {
    if (!byStatus.has(error.status)) byStatus.set(error.status, new Set());
    byStatus.get(error.status)!.add(error.errorCode);
  }
  for (const status of validatedAt) if (!byStatus.has(status)) byStatus.set(status, new Set());
  for (const status of Object.keys(transportErrors).map(Number)) if (!byStatus.has(status)) byStatus.set(status, new Set());
  if (resultUnavailable && !byStatus.has(404)) byStatus.set(404, new Set());

  for (const [status, errorCodes] of [...byStatus.entries()].sort(([a], [b]) => a - b)) {
    if (responses[status]) continue;
    const variants: Array<SchemaObject | ReferenceObject> = [];
    if (validatedAt.has(status)) variants.push({ $ref: '#/components/schemas/ValidationErrorBody' });
    const unavailable = resultUnavailable && status === 404;
    if (unavailable) variants.push({ $ref: '#/components/schemas/JobResultUnavailableBody' });
    if (errorCodes.size > 0) variants.push(errorBodyWith([...errorCodes].sort()));
    const transportError = transportErrors[String(status)];
    if (transportError) variants.push({ $ref: '#/components/schemas/McpTransportErrorBody' });
    const described = [...errorCodes].sort().join(', ');
    const reasons = [
      transportError ? `the MCP transport (a JSON-RPC error, id null): ${transportError}` : '',
      validatedAt.has(status) ? 'request validation (every problem in `detail`)' : '',
      unavailable
        ? 'the job result is unavailable (`detail` an object whose error_code is result_pending, result_expired, result_lost or job_id_invalid; spec 4.5)'
        : '',
      described && `error_code ${described}`,
    ];
    const error: ResponseObject = {
      description: `${STATUS_CODES[status]}: ${reasons.filter(Boolean).join('; or ')}.`,
      headers: headersFor(status),
      // anyOf, not oneOf: the bodies differ in `detail`'s type, and a reader needs no exclusivity proof.
      content: { 'application/json': { schema: variants.length === 1 ? variants[0] : { anyOf: variants } } },
    };
    responses[status] = shared.refTo(status, error);
  }
  for (const [status, response] of Object.entries(responses)) {
    if (!response || '$ref' in response) continue;
    // The handler's own answers (successes, health's 503) carry the usage headers; Retry-After
    // belongs to the error answers built above.
    response.headers = { ...headersFor(Number(status), false), ...response.headers };
  }
}

function headersFor(status: number, withRetryAfter = true): Record<string, { $ref: string }> {
  const headers: Record<string, { $ref: string }> = Object.fromEntries(
    Object.keys(USAGE_HEADERS).map((header) => [header, { $ref: `#/components/headers/${header}` }]),
  );
  if (withRetryAfter && RETRY_AFTER_STATUSES.has(status)) headers['Retry-After'] = { $ref: '#/components/headers/Retry-After' };
  return headers;
}

/**
 * Error responses that several operations answer identically are written once under
 * components/responses and referenced (the document is read by people and generators alike:
 * 30 copies of the same 401 help neither). Names come from the status (NotFound, NotFound2, …).
 */
class SharedResponses {
  private readonly byBody = new Map<string, string>();
  private readonly named: Record<string, ResponseObject> = {};

  refTo(status: number, response: ResponseObject): ReferenceObject {
    const key = JSON.stringify(response);
    let name = this.byBody.get(key);
    if (!name) {
      const base = (STATUS_CODES[status] ?? `Status${status}`).replace(/[^A-Za-z0-9]+(.)?/g, (_, c: string | undefined) =>
        (c ?? '').toUpperCase(),
      );
      name = base;
      for (let n = 2; this.named[name]; n += 1) name = `${base}${n}`;
      this.named[name] = response;
      this.byBody.set(key, name);
    }
    return { $ref: `#/components/responses/${name}` };
  }

  components(): Record<string, ResponseObject> {
    return this.named;
  }
}

type Schema = Record<string, unknown>;

/**
 * OpenAPI 3.0 only lets `nullable` widen a `type` beside it; Nest writes it beside allOf/oneOf
 * too. A composition of objects becomes `type: object`; a union with typed members carries
 * `nullable` on those members instead. Same meaning, and valid for Redocly and code generators.
 */
function giveNullablesATypeSibling(node: unknown): void {
  if (Array.isArray(node)) return node.forEach(giveNullablesATypeSibling);
  if (typeof node !== 'object' || node === null) return;
  const schema = node as Schema;
  if (schema.nullable === true && schema.type === undefined) {
    const members = [schema.allOf, schema.oneOf, schema.anyOf].find(Array.isArray) as Schema[] | undefined;
    const typed = members?.filter((member) => member.type !== undefined) ?? [];
    if (members && typed.length === 0) schema.type = 'object';
    else if (typed.length > 0 && schema.allOf === undefined) {
      for (const member of typed) member.nullable = true;
      delete schema.nullable;
    }
  }
  for (const value of Object.values(schema)) giveNullablesATypeSibling(value);
}

function errorBodyWith(errorCodes: string[]): SchemaObject {
  return {
    type: 'object',
    required: ['detail', 'error_code'],
    properties: {
      detail: { type: 'string', description: 'What went wrong, for humans.' },
      error_code: { type: 'string', enum: errorCodes, description: 'Stable, machine-readable.' },
      reason: {
        type: 'string',
        description: 'A finer machine-readable reason where there is one (target_blocked: private_ip, dns_failed, …).',
      },
      state: {
        type: 'string',
        description: "invalid_state only: the project's or batch's current state, which refused the operation.",
      },
    },
  };
}

// Operator contract §5: `{detail, error_code}`; validation as a list of located problems; the
// job-result 404 keeps the object `detail` of spec 4.5.
const ERROR_SCHEMAS: Record<string, SchemaObject> = {
  ValidationProblem: {
    type: 'object',
    required: ['loc', 'msg', 'type'],
    properties: {
      loc: {
        type: 'array',
        items: { oneOf: [{ type: 'string' }, { type: 'integer' }] },
        example: ['body', 'requests', 3, 'url'],
        description: 'Where: body, query or path, then the field path.',
      },
      msg: { type: 'string' },
      type: { type: 'string', example: 'string_type' },
    },
  },
  ValidationErrorBody: {
    type: 'object',
    required: ['detail'],
    properties: {
      detail: {
        type: 'array',
        minItems: 1,
        items: { $ref: '#/components/schemas/ValidationProblem' },
        description: 'Every problem at once (at most 50, then one item counting the rest).',
      },
    },
  },
  JobResultUnavailableDetail: {
    type: 'object',
    required: ['error_code', 'message', 'completed_at', 'age_hours'],
    properties: {
      error_code: { type: 'string', enum: [...RESULT_ERROR_CODES] },
      message: { type: 'string' },
      completed_at: { type: 'string', nullable: true },
      age_hours: { type: 'number', nullable: true },
    },
  },
  JobResultUnavailableBody: {
    type: 'object',
    required: ['detail'],
    properties: { detail: { oneOf: [{ $ref: '#/components/schemas/JobResultUnavailableDetail' }, { type: 'string' }] } },
  },
};
