import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';

/**
 * The served OpenAPI document as a judge of real responses: every response a test receives must
 * be declared (its path, method and status) and match its schema, with no undeclared fields
 * (object schemas are closed here) and every required header present. The document keeps
 * OpenAPI 3.0's `nullable`; it is turned into JSON Schema's null type for ajv.
 */
export interface ObservedResponse {
  method: string;
  /** Path with or without the query string. */
  path: string;
  status: number;
  headers: Headers;
  text: string;
}

interface DeclaredResponse {
  $ref?: string;
  content?: Record<string, unknown>;
  headers?: Record<string, { $ref?: string; required?: boolean }>;
}

interface Operation {
  method: string;
  template: string;
  pattern: RegExp;
  responses: Record<string, DeclaredResponse>;
}

type Schema = Record<string, unknown>;

export class ApiContract {
  private readonly ajv = new Ajv({ strict: false, allErrors: true, validateSchema: false });
  private readonly operations: Operation[] = [];
  private readonly validators = new Map<string, ValidateFunction>();
  private readonly headerComponents: Record<string, { required?: boolean }>;
  private readonly responseComponents: Record<string, DeclaredResponse>;

  constructor(readonly document: Schema) {
    addFormats(this.ajv);
    const judged = closeAndNullable(structuredClone(document));
    this.ajv.addSchema({ ...judged, $id: 'api' });
    const paths = document.paths as Record<string, Record<string, { responses: Record<string, DeclaredResponse> }>>;
    for (const [template, item] of Object.entries(paths)) {
      // Fastify matches an empty parameter too (…/requests//DE), so a segment may be empty.
      // A trailing {path} takes the rest of the path, slashes and all (GET /v1/read/{path}: a URL).
      const escaped = template.replace(/[.*+?^$()|[\]\\]/g, '\\$&');
      const pattern = new RegExp(`^${escaped.replace(/\{path\}$/, '.*').replace(/\{[^}]+\}/g, '[^/]*')}$`);
      for (const [method, operation] of Object.entries(item))
        this.operations.push({ method: method.toUpperCase(), template, pattern, responses: operation.responses });
    }
    this.headerComponents = ((document.components as Schema | undefined)?.headers ?? {}) as Record<string, { required?: boolean }>;
    this.responseComponents = ((document.components as Schema | undefined)?.responses ?? {}) as Record<string, DeclaredResponse>;
  }

  /** Every operation as `METHOD /template`. */
  operationNames(): string[] {
    return this.operations.map((o) => `${o.method} ${o.template}`);
  }

  /** The operation a request reached, if the document has it. */
  operationOf(method: string, path: string): Operation | undefined {
    const bare = path.split('?')[0];
    const matching = this.operations.filter((o) => o.method === method.toUpperCase() && o.pattern.test(bare));
    // A literal segment beats a parameter (…/webhooks/secret/rotate before …/{id}).
    return matching.sort((a, b) => (a.template.match(/\{/g)?.length ?? 0) - (b.template.match(/\{/g)?.length ?? 0))[0];
  }

  /** What is wrong with one response, as readable lines; empty when it conforms. */
  problemsWith(response: ObservedResponse): string[] {
    const method = response.method.toUpperCase();
    // Preflights and HEAD are HTTP's, not operations of the API.
    if (method === 'OPTIONS' || method === 'HEAD') return [];
    const label = `${method} ${response.path.slice(0, 200)} → ${response.status}`;
    const operation = this.operationOf(method, response.path);
    if (!operation) {
      // Unknown routes answer the contract's error body with 404 (405 is never used: Fastify says 404).
      return this.unknownRouteProblems(label, response);
    }
    const listed = operation.responses[String(response.status)];
    const declared = listed?.$ref ? this.responseComponents[listed.$ref.split('/').pop()!] : listed;
    if (!declared)
      return [
        `${label}: status ${response.status} is not declared for ${operation.method} ${operation.template} (declared: ${Object.keys(operation.responses).join(', ')}) — body ${response.text.slice(0, 300)}`,
      ];
    const problems: string[] = [];
    for (const [name, header] of Object.entries(declared.headers ?? {})) {
      const required = header.$ref ? this.headerComponents[header.$ref.split('/').pop()!]?.required : header.required;
      if (required && response.headers.get(name) === null) problems.push(`${label}: required header ${name} missing`);
    }
    if (!declared.content) return problems;
    const contentType = response.headers.get('content-type') ?? '';
    // A text answer (GET /metrics: Prometheus's exposition format) is declared as text/plain, a string.
    if (!declared.content['application/json'] && declared.content['text/plain']) {
      return contentType.startsWith('text/plain')
        ? problems
        : [...problems, `${label}: content-type ${contentType || '(none)'} where the document declares text/plain`];
    }
    // An operation that answers text beside JSON (GET /v1/read's markdown) declares each text type as a string.
    const textType = Object.keys(declared.content).find((type) => type.startsWith('text/') && contentType.startsWith(type));
    if (textType) return problems;
    if (!contentType.includes('application/json'))
      return [...problems, `${label}: content-type ${contentType || '(none)'} where the document declares application/json`];
    let body: unknown;
    try {
      body = JSON.parse(response.text);
    } catch {
      return [...problems, `${label}: body is not JSON: ${response.text.slice(0, 200)}`];
    }
    const validate = this.validatorFor(operation, response.status, listed?.$ref);
    if (!validate(body)) {
      const errors = (validate.errors ?? [])
        .slice(0, 8)
        .map(
          (e) =>
            `${e.instancePath || '/'} ${e.message}${e.params && 'additionalProperty' in e.params ? ` (${String(e.params.additionalProperty)})` : ''}`,
        );
      problems.push(
        `${label}: body does not match the ${response.status} schema of ${operation.method} ${operation.template}: ${errors.join('; ')} — body ${response.text.slice(0, 400)}`,
      );
    }
    return problems;
  }

  /** Throws with every problem (the end-to-end harness calls this on each response). */
  assertConforms(response: ObservedResponse): void {
    const problems = this.problemsWith(response);
    if (problems.length > 0) throw new Error(`response outside the API contract:\n${problems.join('\n')}`);
  }

  private unknownRouteProblems(label: string, response: ObservedResponse): string[] {
    if (
      response.status === 404 ||
      response.status === 401 ||
      response.status === 400 ||
      response.status === 414 ||
      response.status === 431 ||
      response.status === 429
    ) {
      const validate = this.errorBodyValidator();
      try {
        if (validate(JSON.parse(response.text))) return [];
      } catch {
        // falls through
      }
      return [`${label}: an unknown route must answer the contract's error body: ${response.text.slice(0, 200)}`];
    }
    return [`${label}: no operation of the document matches this request`];
  }

  private errorBodyValidator(): ValidateFunction {
    const key = 'error-body';
    let validate = this.validators.get(key);
    if (!validate) {
      validate = this.ajv.compile({
        type: 'object',
        required: ['detail', 'error_code'],
        properties: { detail: { type: 'string' }, error_code: { type: 'string' } },
        additionalProperties: false,
      });
      this.validators.set(key, validate);
    }
    return validate;
  }

  private validatorFor(operation: Operation, status: number, sharedRef: string | undefined): ValidateFunction {
    const key = sharedRef ?? `${operation.method} ${operation.template} ${status}`;
    let validate = this.validators.get(key);
    if (!validate) {
      const at = sharedRef
        ? ['components', 'responses', sharedRef.split('/').pop()!]
        : ['paths', operation.template, operation.method.toLowerCase(), 'responses', String(status)];
      const pointer = [...at, 'content', 'application/json', 'schema']
        .map((part) => part.replace(/~/g, '~0').replace(/\//g, '~1'))
        .join('/');
      validate = this.ajv.compile({ $ref: `api#/${pointer}` });
      this.validators.set(key, validate);
    }
    return validate;
  }
}

/**
 * OpenAPI 3.0 → what ajv judges: `nullable` becomes a null type (or a null alternative beside a
 * composition), and an object schema that lists its properties admits no others, so a field the
 * document does not describe is a mismatch rather than a silent extra.
 */
function closeAndNullable(node: unknown): Schema {
  const visit = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(visit);
    if (typeof value !== 'object' || value === null) return value;
    let schema: Schema = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, visit(v)]));
    if (schema.type === 'object' && schema.properties !== undefined && schema.additionalProperties === undefined)
      schema.additionalProperties = false;
    if (schema.nullable === true) {
      delete schema.nullable;
      if (Array.isArray(schema.enum) && !schema.enum.includes(null)) schema.enum = [...schema.enum, null];
      if (schema.allOf || schema.oneOf || schema.anyOf || schema.$ref) {
        const { description, ...rest } = schema;
        schema = { anyOf: [rest, { type: 'null' }], ...(description === undefined ? {} : { description }) };
      } else if (typeof schema.type === 'string') {
        schema.type = [schema.type, 'null'];
      }
    }
    return schema;
  };
  return visit(node) as Schema;
}

const contracts = new Map<string, Promise<ApiContract>>();

/** The contract served at `baseUrl` (fetched once per base URL and kept). */
export function contractOf(baseUrl: string): Promise<ApiContract> {
  let contract = contracts.get(baseUrl);
  if (!contract) {
    contract = fetch(`${baseUrl}/v1/openapi.json`).then(async (response) => {
      if (!response.ok) throw new Error(`GET ${baseUrl}/v1/openapi.json answered ${response.status}`);
      return new ApiContract((await response.json()) as Schema);
    });
    contracts.set(baseUrl, contract);
    contract.catch(() => contracts.delete(baseUrl));
  }
  return contract;
}

/** A fetch (for the SDK and openapi-fetch) that judges every response it returns against the contract. */
export function contractCheckedFetch(baseUrl: string, seen?: (operation: string) => void): (request: Request) => Promise<Response> {
  return async (request) => {
    const response = await fetch(request);
    const url = new URL(request.url);
    const contract = await contractOf(baseUrl);
    contract.assertConforms({
      method: request.method,
      path: `${url.pathname}${url.search}`,
      status: response.status,
      headers: response.headers,
      text: await response.clone().text(),
    });
    const operation = contract.operationOf(request.method, url.pathname);
    if (operation && seen) seen(`${operation.method} ${operation.template}`);
    return response;
  };
}
