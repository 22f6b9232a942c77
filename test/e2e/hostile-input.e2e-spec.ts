import fc from 'fast-check';
import { type ApiContract, contractOf } from '../support/api-contract';
import { type FixtureSite, startFixtureSite } from '../support/fixture-site';
import { eventually } from './support/eventually';
import { type InProcessPlatform, startInProcessPlatform } from './support/in-process-platform';
import { http } from './support/http';
import { runtimesUnderTest } from './support/runtimes';

/**
 * Property-based fuzzing of every operation the live OpenAPI document lists (so a new endpoint is
 * fuzzed the day it is served): generated bodies, query strings, path parameters and headers —
 * nesting, sizes, key counts, NUL, lone surrogates, invalid UTF-8, overlong numbers, wrong types,
 * forged cursors. Every answer must be a 4xx with the contract's error body within 1 s (or a 2xx
 * when the generator happened to write a valid request), never a 5xx, while a health probe keeps
 * answering. FUZZ_SEED replays a run; FUZZ_RUNS sets how many requests per runtime.
 */
const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : Math.floor(Math.random() * 2 ** 31);
const RUNS = process.env.FUZZ_RUNS ? Number(process.env.FUZZ_RUNS) : 1500;
const ANSWER_BUDGET_MS = 1000;

interface Operation {
  method: string;
  path: string;
  pathParams: string[];
  queryParams: string[];
  headerParams: string[];
  bodyFields: string[];
  hasBody: boolean;
}

interface GeneratedRequest {
  op: Operation;
  path: Record<string, string>;
  query: Array<[string, string]>;
  headers: Record<string, string>;
  auth: 'client' | 'admin' | 'none' | 'bogus';
  body: Buffer | undefined;
  contentType: string | undefined;
}

function operationsOf(doc: {
  paths: Record<
    string,
    Record<
      string,
      { parameters?: Array<{ in: string; name: string }>; requestBody?: { content: Record<string, { schema?: { $ref?: string } }> } }
    >
  >;
  components?: { schemas?: Record<string, { properties?: Record<string, unknown> }> };
}): Operation[] {
  const ops: Operation[] = [];
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      const params = op.parameters ?? [];
      const ref = op.requestBody?.content['application/json']?.schema?.$ref;
      const schema = ref ? doc.components?.schemas?.[ref.split('/').pop()!] : undefined;
      ops.push({
        method: method.toUpperCase(),
        path,
        pathParams: params.filter((p) => p.in === 'path').map((p) => p.name),
        queryParams: params.filter((p) => p.in === 'query').map((p) => p.name),
        headerParams: params.filter((p) => p.in === 'header').map((p) => p.name),
        bodyFields: Object.keys(schema?.properties ?? {}),
        hasBody: op.requestBody !== undefined,
      });
    }
  }
  return ops;
}

/** Strings a hostile client sends. */
const hostileText = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ maxLength: 20 }).map((s) => `${s}\u0000${s}`),
  fc.constantFrom('\uD800', 'a\uDC00b', '\uDBFF\uDBFF', '😀'.slice(0, 1)),
  fc.constantFrom('1e400', '-0', '99999999999999999999999999', 'NaN', 'Infinity', '0x10', '', ' ', 'null', 'true', '[]', '{}'),
  fc.constantFrom(
    "' or 1=1 --",
    '../../etc/passwd',
    '%00',
    '%ZZ',
    '\r\nx-injected: 1',
    '<script>alert(1)</script>',
    '${7*7}',
    '\u202Eevil',
  ),
  fc.constantFrom('2026-13-45', '2026-01-01:2025-01-01', '9999-12-31T23:59:59Z', '+275760-09-13', '0000-00-00', '2026-11', 'yesterday'),
  fc.integer({ min: 1, max: 3_000 }).map((n) => 'x'.repeat(n)),
  fc.constantFrom(
    'http://127.0.0.1/',
    'http://[::1]/',
    'file:///etc/passwd',
    'gopher://x',
    'http://169.254.169.254/latest',
    'http://0/',
    'http://example.com:99999/',
    'javascript:alert(1)',
    'http://a b/',
  ),
  fc.constantFrom('00000000-0000-0000-0000-000000000000', 'ffffffff-ffff-ffff-ffff-ffffffffffff', 'not-a-uuid'),
);

/** In bodies, strings may also be long (headers and URLs have a 16 KB limit of their own). */
const hostileBodyText = fc.oneof(
  hostileText,
  fc.integer({ min: 3_000, max: 400_000 }).map((n) => 'y'.repeat(n)),
);

/** JSON values of every type and shape, hostile strings and numbers included. */
const hostileValue: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    hostileBodyText,
    fc.oneof(fc.integer(), fc.double(), fc.constantFrom(Number.MAX_SAFE_INTEGER + 2, -1, 0, 1e300, -1e-300, 2 ** 53)),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(hostileText, tie('value'), { maxKeys: 4 }),
  ),
})).value;

/** Raw bodies that are not a JSON object of sensible shape. */
function rawBodies(siteUrl: string): fc.Arbitrary<{ body: Buffer; contentType?: string }> {
  const json = (text: string) => ({ body: Buffer.from(text, 'utf8') });
  return fc.oneof(
    fc.integer({ min: 65, max: 20_000 }).map((d) => json(`{"url":${'['.repeat(d)}${']'.repeat(d)}}`)),
    fc.integer({ min: 65, max: 20_000 }).map((d) => json(`${'{"a":'.repeat(d)}1${'}'.repeat(d)}`)),
    fc.integer({ min: 1_001, max: 300_000 }).map((n) => json(`{${Array.from({ length: n }, (_, i) => `"k${i}":${i}`).join(',')}}`)),
    fc.integer({ min: 10_001, max: 200_000 }).map((n) => json(`{"requests":[${Array.from({ length: n }, () => '1').join(',')}]}`)),
    fc.constantFrom(
      json(''),
      json('{'),
      json('{"a":}'),
      json('nul'),
      json('[]'),
      json('"text"'),
      json('1e99999'),
      json('{"__proto__":{"admin":true}}'),
      json('{"constructor":{"prototype":{"x":1}}}'),
    ),
    fc
      .uint8Array({ minLength: 1, maxLength: 64 })
      .map((bytes) => ({ body: Buffer.concat([Buffer.from('{"name":"'), Buffer.from([0xff, ...bytes]), Buffer.from('"}')]) })),
    fc.constantFrom(
      { body: Buffer.from('url=x'), contentType: 'application/x-www-form-urlencoded' },
      { body: Buffer.from('<xml/>'), contentType: 'text/xml' },
      { body: Buffer.from('{}'), contentType: 'application/json; charset=latin1' },
    ),
    fc.constant(
      json(JSON.stringify({ url: `${siteUrl}/page`, name: 'x', requests: [{ url: `${siteUrl}/page`, custom_id: 'c'.repeat(256) }] })),
    ),
  );
}

function generatedRequests(ops: Operation[], siteUrl: string, knownIds: string[]): fc.Arbitrary<GeneratedRequest> {
  const pathValue = fc.oneof(hostileText, fc.constantFrom(...knownIds));
  const queryValue = fc.oneof(
    hostileText,
    fc.constantFrom('1', '0', '1000', '1001', 'true', 'false', 'id', 'completed_at', 'asc', 'desc', 'completed,failed', 'urls'),
  );
  const fieldValue = fc.oneof(
    hostileValue,
    fc.constantFrom(`${siteUrl}/page`, `${siteUrl}/status/404`, 'markdown', 'html', 'heavy', 'light', 'any', 'FR', 'mobile'),
  );
  return fc.constantFrom(...ops).chain((op) =>
    fc
      .record({
        op: fc.constant(op),
        path: fc.record(Object.fromEntries(op.pathParams.map((p) => [p, pathValue]))) as fc.Arbitrary<Record<string, string>>,
        query: fc.array(
          fc.tuple(fc.oneof(fc.constantFrom(...(op.queryParams.length > 0 ? op.queryParams : ['q'])), hostileText), queryValue),
          { maxLength: 6 },
        ),
        headers: fc.record(
          { 'idempotency-key': hostileText, 'x-request-id': hostileText, accept: fc.constantFrom('*/*', 'text/html', 'application/xml') },
          { requiredKeys: [] },
        ),
        auth: fc.constantFrom(
          'client' as const,
          'client' as const,
          'client' as const,
          'admin' as const,
          'admin' as const,
          'none' as const,
          'bogus' as const,
        ),
        bodyPart:
          op.hasBody || Math.random() < 0.2
            ? fc.oneof(
                rawBodies(siteUrl),
                fc
                  .dictionary(fc.oneof(fc.constantFrom(...(op.bodyFields.length > 0 ? op.bodyFields : ['x'])), hostileText), fieldValue, {
                    maxKeys: 8,
                  })
                  .map((v) => ({ body: Buffer.from(JSON.stringify(v)), contentType: undefined })),
              )
            : fc.constant(undefined),
      })
      .map(({ bodyPart, ...rest }) => ({
        ...rest,
        body: bodyPart?.body,
        contentType: bodyPart ? (bodyPart.contentType ?? 'application/json') : undefined,
      })),
  );
}

/** Node's fetch refuses header values with control characters: such values are sent encoded. */
function sendableHeader(value: string): string {
  return /^[\x20-\x7e\t]*$/.test(value) ? value : encodeURIComponent(value.toWellFormed());
}

describe.each(runtimesUnderTest('hostile'))('hostile input on every endpoint — $name', (runtime) => {
  let site: FixtureSite;
  let env: InProcessPlatform;
  let cleanup: () => Promise<void> = async () => undefined;
  let clientToken: string;
  let ops: Operation[];
  let contract: ApiContract;
  const knownIds: string[] = [];

  beforeAll(async () => {
    site = await startFixtureSite();
    const prepared = await runtime.prepare();
    cleanup = prepared.cleanup;
    env = await startInProcessPlatform({
      ...prepared.env,
      TARGET_ALLOWLIST: `127.0.0.1:${site.port}`,
      ANONYMOUS_RATE_LIMIT: '1000000',
      BROWSER_WARM: 'false',
    });
    const client = (
      await http(env.url, '/v1/admin/clients', {
        token: env.adminToken,
        json: { plan: 'enterprise', client_id: `fuzz-${runtime.mode}-client`, rate_limit_per_minute: 1_000_000 },
      })
    ).body;
    clientToken = client.token;
    // Real resources, so hostile queries reach the code behind a found collection, run and job.
    const collection = (
      await http(env.url, '/v1/async/collections', {
        token: clientToken,
        json: { name: 'fuzz', callback_url: null, requests: [{ url: `${site.url}/page` }, { url: `${site.url}/status/404` }] },
      })
    ).body.id;
    const run = (await http(env.url, `/v1/async/collections/${collection}/run`, { token: clientToken, method: 'POST' })).body;
    await eventually(
      async () =>
        (await http(env.url, `/v1/async/collections/${collection}/runs/${run.run_id}`, { token: clientToken })).body.status === 'completed',
      { what: 'the fuzz run completed' },
    );
    // Not the fuzz client's own id: a generated rotate-token would lock the rest of the run out.
    knownIds.push(collection, run.run_id, ...run.job_ids, 'demo', 'nobody');
    ops = operationsOf((await http(env.url, '/v1/openapi.json')).body);
    contract = await contractOf(env.url);
    expect(ops.length).toBeGreaterThan(20);
  });
  afterAll(async () => {
    await env?.stop();
    await cleanup();
    await site?.close();
  });

  it(`answers ${RUNS} generated requests with 2xx or a contract 4xx, within ${ANSWER_BUDGET_MS} ms, never 5xx, while health keeps answering`, async () => {
    process.stdout.write(`hostile-input fuzz (${runtime.name}): seed ${SEED}, ${RUNS} requests — replay with FUZZ_SEED=${SEED}\n`);
    const health: Array<{ status: number; ms: number }> = [];
    let probing = true;
    const prober = (async () => {
      while (probing) {
        const started = Date.now();
        const status = await fetch(`${env.url}/v1/health/live`).then(
          (r) => r.status,
          () => 0,
        );
        health.push({ status, ms: Date.now() - started });
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
    const statuses = new Map<number, number>();
    let slowest = 0;
    try {
      await fc.assert(
        fc.asyncProperty(generatedRequests(ops, site.url, knownIds), async (req) => {
          const path = req.op.path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent((req.path[name] ?? 'x').toWellFormed()));
          const query = req.query
            .map(([k, v]) => `${encodeURIComponent(k.toWellFormed())}=${encodeURIComponent(v.toWellFormed())}`)
            .join('&');
          const headers: Record<string, string> = {};
          for (const [k, v] of Object.entries(req.headers)) headers[k] = sendableHeader(v);
          if (req.contentType) headers['content-type'] = req.contentType;
          const token =
            req.auth === 'client'
              ? clientToken
              : req.auth === 'admin'
                ? env.adminToken
                : req.auth === 'bogus'
                  ? 'sk_not_a_real_token'
                  : undefined;
          if (token) headers.authorization = `Bearer ${token}`;
          const send = async () => {
            const started = Date.now();
            const answer = await fetch(`${env.url}${path}${query ? `?${query}` : ''}`, {
              method: req.op.method,
              headers,
              body: req.op.method === 'GET' || !req.body ? undefined : new Uint8Array(req.body),
            });
            return { response: answer, text: await answer.text(), ms: Date.now() - started };
          };
          let { response, text, ms } = await send();
          // An input that costs the service its budget costs it every time; a pause of the machine
          // (other test files run beside this one) does not repeat. So an answer over budget is sent
          // once more, and only a second one over budget fails.
          if (response.status >= 300 && ms > ANSWER_BUDGET_MS) ({ response, text, ms } = await send());
          statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
          const where = `${req.op.method} ${path}${query ? `?${query.slice(0, 200)}` : ''} → ${response.status} in ${ms} ms: ${text.slice(0, 300)}`;
          if (response.status >= 500) throw new Error(`5xx: ${where}`);
          // Whatever it answers, it answers as the document says: the status declared, the body the
          // contract's (JSON, `{detail, error_code}` with a declared code, a non-empty problem list,
          // or the job-result object), Retry-After on 429; an unknown route, the error body.
          contract.assertConforms({
            method: req.op.method,
            path: `${path}${query ? `?${query}` : ''}`,
            status: response.status,
            headers: response.headers,
            text,
          });
          if (response.status >= 300) {
            slowest = Math.max(slowest, ms);
            if (ms > ANSWER_BUDGET_MS) throw new Error(`over ${ANSWER_BUDGET_MS} ms: ${where}`);
          }
        }),
        { numRuns: RUNS, seed: SEED, endOnFailure: true },
      );
    } finally {
      probing = false;
      await prober;
      process.stdout.write(
        `hostile-input fuzz (${runtime.name}): statuses ${JSON.stringify(Object.fromEntries(statuses))}, slowest error answer ${slowest} ms, health max ${Math.max(...health.map((h) => h.ms))} ms over ${health.length} probes\n`,
      );
    }
    expect(health.length).toBeGreaterThan(0);
    expect(health.filter((h) => h.status !== 200)).toEqual([]);
    // Health keeps answering: every hostile request was itself held to the budget (twice, above),
    // so a lone slow probe is a pause of the machine (other test files run beside this one: one
    // probe of 2,683 ms in a CI run), not a stall an input caused. A stall that lasts fails here.
    const slowProbes = health.filter((h) => h.ms >= ANSWER_BUDGET_MS);
    expect(slowProbes.length).toBeLessThanOrEqual(Math.floor(health.length * 0.05));
    // The generators reach past validation: errors of several kinds, not one status for everything.
    expect([...statuses.keys()].filter((s) => s >= 400).length).toBeGreaterThanOrEqual(4);
  });
});
