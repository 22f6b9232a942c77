import type { OpenAPIObject } from '@nestjs/swagger';
import fs from 'node:fs';
import { GatewayModule } from '../../apps/gateway/src/gateway.module';
import { describeApi } from '../../apps/gateway/src/openapi/api-description';
import { ApiContract } from '../support/api-contract';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { typesOf, referenceWith, pythonClientOf, files } = require('../../scripts/api-description.js') as {
  typesOf(document: object): Promise<string>;
  referenceWith(document: object, reference: string): string;
  pythonClientOf(document: object): { models: string; operations: string };
  files: { document: string; types: string; reference: string; pythonModels: string; pythonOperations: string };
};

// @nestjs/swagger's key for ApiExtension metadata (DECORATORS.API_EXTENSION; its dist/ is not exported).
const API_EXTENSION_METADATA = 'swagger/apiExtension';

describe('the API description', () => {
  let document: OpenAPIObject;
  beforeAll(async () => {
    document = await describeApi();
  });

  it("is the committed sdk/openapi.json; both SDKs' generated code and docs/api-reference.md's operation table are generated from it (no drift)", async () => {
    expect(JSON.parse(fs.readFileSync(files.document, 'utf8'))).toEqual(JSON.parse(JSON.stringify(document)));
    expect(fs.readFileSync(files.types, 'utf8')).toBe(await typesOf(JSON.parse(fs.readFileSync(files.document, 'utf8'))));
    const python = pythonClientOf(JSON.parse(fs.readFileSync(files.document, 'utf8')));
    expect(fs.readFileSync(files.pythonModels, 'utf8')).toBe(python.models);
    expect(fs.readFileSync(files.pythonOperations, 'utf8')).toBe(python.operations);
    const reference = fs.readFileSync(files.reference, 'utf8');
    expect(reference).toBe(referenceWith(document, reference));
  });

  it('gives every operation a summary, one typed success and a schema on every response', () => {
    const components = document.components as {
      responses: Record<string, { content?: Record<string, object> }>;
      schemas: Record<string, object>;
    };
    let operations = 0;
    for (const [template, item] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(
        item as Record<
          string,
          { summary?: string; responses: Record<string, { $ref?: string; content?: Record<string, { schema?: object }> }> }
        >,
      )) {
        operations += 1;
        const name = `${method.toUpperCase()} ${template}`;
        expect([name, operation.summary?.length ?? 0]).not.toEqual([name, 0]);
        const hasBody = (status: string) => {
          const response = operation.responses[status];
          const resolved = response.$ref ? components.responses[response.$ref.split('/').pop()!] : response;
          // JSON, or the one text operation (GET /metrics: Prometheus's text format, schema string).
          const content = resolved?.content as Record<string, { schema?: object }> | undefined;
          return Boolean(content?.['application/json'] ?? content?.['text/plain']?.schema);
        };
        const successes = Object.keys(operation.responses).filter((s) => s.startsWith('2'));
        // One typed success; besides it only a bodiless 202 (the agent endpoint's answer to notifications).
        // An operation with no success at all exists to refuse (the stateless agent endpoint's GET and DELETE: 405).
        const typed = successes.filter(hasBody);
        const shape = successes.length === 0 ? 'refuses with 405' : typed.length;
        expect([name, shape]).toEqual([name, successes.length === 0 && operation.responses['405'] ? 'refuses with 405' : 1]);
        for (const status of Object.keys(operation.responses)) {
          expect([name, status, hasBody(status)]).toEqual([
            name,
            status,
            !(status === '202' && typed.length === 1 && !typed.includes('202')),
          ]);
        }
        // Of the extensions that build the document, only who may call it stays.
        expect(Object.keys(operation).filter((k) => k.startsWith('x-'))).toEqual(['x-access']);
      }
    }
    expect(operations).toBeGreaterThanOrEqual(30);
    // Every schema is reached from an operation: none is described for nothing.
    const refs = new Set(
      [
        ...JSON.stringify({ paths: document.paths, responses: components.responses, schemas: components.schemas }).matchAll(
          /"#\/components\/schemas\/([^"]+)"/g,
        ),
      ].map((m) => m[1]),
    );
    expect(Object.keys(components.schemas).filter((name) => !refs.has(name))).toEqual([]);
  });

  it('shows examples for the main operations, each valid against its own schema', () => {
    const contract = new ApiContract(JSON.parse(JSON.stringify(document)));
    const examples: string[] = [];
    for (const [template, item] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(
        item as Record<string, { responses: Record<string, { content?: Record<string, { example?: unknown }> }> }>,
      )) {
        for (const [status, response] of Object.entries(operation.responses)) {
          const example = response.content?.['application/json']?.example;
          if (example === undefined) continue;
          examples.push(`${method.toUpperCase()} ${template}`);
          const concrete = template.replace(/\{[^}]+\}/g, '00000000-0000-4000-8000-000000000000');
          const headers = new Headers({ 'content-type': 'application/json' });
          expect(contract.problemsWith({ method, path: concrete, status: Number(status), headers, text: JSON.stringify(example) })).toEqual(
            [],
          );
        }
      }
    }
    expect(examples).toEqual(
      expect.arrayContaining([
        'POST /v1/sync/scrape',
        'POST /v1/async/collections',
        'GET /v1/async/collections/{collection_id}/runs/{run_id}',
        'GET /v1/async/collections/{collection_id}/runs/{run_id}/jobs',
      ]),
    );
  });

  it('declares on each route the validation status its request DTOs answer with', () => {
    const controllers = Reflect.getMetadata('controllers', GatewayModule) as Array<new (...args: never[]) => object>;
    let checked = 0;
    for (const controller of controllers) {
      for (const key of Object.getOwnPropertyNames(controller.prototype)) {
        const handler = (controller.prototype as Record<string, unknown>)[key];
        if (key === 'constructor' || typeof handler !== 'function') continue;
        const extensions = (Reflect.getMetadata(API_EXTENSION_METADATA, handler) ?? {}) as Record<string, unknown>;
        if (!('x-access' in extensions)) continue;
        const dtoStatuses = ((Reflect.getMetadata('design:paramtypes', controller.prototype, key) ?? []) as unknown[])
          .map((type) => (type as { validationStatus?: number } | undefined)?.validationStatus)
          .filter((status): status is number => status !== undefined);
        const declared = (extensions['x-validation-status'] as number | undefined) ?? 422;
        for (const status of dtoStatuses) expect([`${controller.name}.${key}`, status]).toEqual([`${controller.name}.${key}`, declared]);
        checked += 1;
      }
    }
    expect(checked).toBeGreaterThanOrEqual(30);
  });
});

describe('ApiContract (the judge the end-to-end tests use)', () => {
  let contract: ApiContract;
  const json = { 'content-type': 'application/json; charset=utf-8' };
  const observed = (method: string, p: string, status: number, body: unknown, headers: Record<string, string> = json) => ({
    method,
    path: p,
    status,
    headers: new Headers(headers),
    text: JSON.stringify(body),
  });
  const run = {
    run_id: '22222222-2222-4222-8222-222222222222',
    status: 'completed',
    total_requests: 1,
    success_requests: 1,
    failed_requests: 0,
    timeout_requests: 0,
    cancelled_requests: 0,
    collection_id: '11111111-1111-4111-8111-111111111111',
    job_ids: ['j'],
    callback_url: null,
    callback_status: null,
    created_at: null,
    success_criterion: null,
    all_jobs_persisted: true,
    credits_charged: 1,
  };
  const runPath = '/v1/async/collections/11111111-1111-4111-8111-111111111111/runs/22222222-2222-4222-8222-222222222222';

  beforeAll(async () => {
    contract = new ApiContract(JSON.parse(JSON.stringify(await describeApi())));
  });

  it('accepts a response on its schema', () => {
    expect(contract.problemsWith(observed('GET', runPath, 200, run))).toEqual([]);
    expect(
      contract.problemsWith(observed('GET', `${runPath}?x=1`, 200, { ...run, success_criterion: { version: 'v', rules: [] } })),
    ).toEqual([]);
  });

  it('refuses an undeclared status, a missing required field, a wrong type, an undocumented field and a non-JSON body', () => {
    expect(contract.problemsWith(observed('GET', runPath, 418, run)).join()).toMatch(/status 418 is not declared/);
    const { total_requests: _, ...missing } = run;
    expect(contract.problemsWith(observed('GET', runPath, 200, missing)).join()).toMatch(/must have required property 'total_requests'/);
    expect(contract.problemsWith(observed('GET', runPath, 200, { ...run, created_at: 'yesterday' })).join()).toMatch(
      /created_at must be number/,
    );
    expect(contract.problemsWith(observed('GET', runPath, 200, { ...run, surprise: 1 })).join()).toMatch(
      /additional properties \(surprise\)/,
    );
    expect(contract.problemsWith({ ...observed('GET', runPath, 200, run), text: '<html>' }).join()).toMatch(/not JSON/);
    // A validation answer names at least one problem.
    expect(contract.problemsWith(observed('POST', '/v1/sync/scrape', 422, { detail: [] })).join()).toMatch(/does not match the 422 schema/);
    expect(
      contract.problemsWith(
        observed('POST', '/v1/sync/scrape', 422, { detail: [{ loc: ['body', 'url'], msg: 'required', type: 'missing' }] }),
      ),
    ).toEqual([]);
  });

  it('holds error bodies to their declared error_code values and Retry-After to 429', () => {
    expect(contract.problemsWith(observed('GET', runPath, 404, { detail: 'no', error_code: 'run_not_found' }))).toEqual([]);
    expect(contract.problemsWith(observed('GET', runPath, 404, { detail: 'no', error_code: 'made_up' })).join()).toMatch(/allowed values/);
    expect(contract.problemsWith(observed('GET', runPath, 429, { detail: 'slow down', error_code: 'rate_limit_exceeded' })).join()).toMatch(
      /Retry-After missing/,
    );
    expect(
      contract.problemsWith(
        observed('GET', runPath, 429, { detail: 'slow down', error_code: 'rate_limit_exceeded' }, { ...json, 'retry-after': '3' }),
      ),
    ).toEqual([]);
  });

  it('knows unknown routes answer the error body', () => {
    expect(contract.problemsWith(observed('GET', '/v1/nowhere', 404, { detail: 'Not found', error_code: 'not_found' }))).toEqual([]);
    expect(contract.problemsWith(observed('GET', '/v1/nowhere', 200, {})).join()).toMatch(/no operation/);
  });
});
