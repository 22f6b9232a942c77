import Ajv2020 from 'ajv/dist/2020';
import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { OpenAPIObject } from '@nestjs/swagger';
import { toolCatalog } from './tool-catalog';
import { OpenApiSchemas, type Schema, orNull } from './tool-schema-parts';

const document = JSON.parse(readFileSync(path.resolve(__dirname, '../../../../sdk/openapi.json'), 'utf8')) as OpenAPIObject;
const tools = toolCatalog(document);

// Keywords under which a value is a schema (or a map or list of them), as JSON Schema 2020-12 names them.
const SCHEMA_MAPS = ['properties', '$defs', 'patternProperties', 'dependentSchemas'];
const SCHEMA_LISTS = ['anyOf', 'oneOf', 'allOf', 'prefixItems'];
const SCHEMA_VALUES = ['items', 'not', 'additionalProperties', 'contains', 'if', 'then', 'else', 'propertyNames'];
// What makes a schema say something about its value (an annotation alone accepts anything).
const CONSTRAINING = [
  'type',
  'enum',
  'const',
  '$ref',
  'anyOf',
  'oneOf',
  'allOf',
  'not',
  'properties',
  'required',
  'items',
  'additionalProperties',
  'minimum',
  'maximum',
  'minLength',
  'maxLength',
  'pattern',
  'format',
];

/** Every schema object in `schema`, with its path, walking the keywords above. */
function* schemaNodes(schema: unknown, at: string): Generator<[string, unknown]> {
  yield [at, schema];
  if (typeof schema !== 'object' || schema === null) return;
  const node = schema as Record<string, unknown>;
  for (const key of SCHEMA_MAPS)
    for (const [name, sub] of Object.entries((node[key] as Record<string, unknown>) ?? {})) yield* schemaNodes(sub, `${at}.${key}.${name}`);
  for (const key of SCHEMA_LISTS)
    for (const [i, sub] of ((node[key] as unknown[]) ?? []).entries()) yield* schemaNodes(sub, `${at}.${key}[${i}]`);
  for (const key of SCHEMA_VALUES) if (typeof node[key] === 'object') yield* schemaNodes(node[key], `${at}.${key}`);
}

/**
 * The agent tools' schemas in the form the widest set of MCP clients reads (decision 0040): the
 * MCP Inspector's portability lint finds nothing in them — no `type` written as an array (a client
 * that maps onto a single-type dialect refuses it), no schema that constrains nothing, no bare
 * boolean schema — and a nullable field still takes null and still refuses what it refused.
 */
describe('agent tool schemas: portable', () => {
  const every = tools.flatMap((tool) =>
    (['inputSchema', 'outputSchema'] as const).flatMap((kind) =>
      tool[kind] === undefined ? [] : [...schemaNodes(tool[kind], `${tool.name}.${kind}`)],
    ),
  );

  it('walks every schema of every tool', () => {
    expect(tools.length).toBeGreaterThanOrEqual(9);
    expect(every.length).toBeGreaterThan(300);
  });

  it('writes no type as an array', () => {
    expect(every.filter(([, node]) => Array.isArray((node as Schema)?.type)).map(([at]) => at)).toEqual([]);
  });

  it('has no schema that constrains nothing, and no bare boolean schema', () => {
    const loose = every.filter(
      ([, node]) => typeof node === 'boolean' || !CONSTRAINING.some((key) => key in (node as Record<string, unknown>)),
    );
    expect(loose.map(([at]) => at)).toEqual([]);
  });

  it('keeps a nullable field nullable and as strict as it was, for any OpenAPI 3.0 schema', () => {
    const ajv = new Ajv2020({ strict: false });
    const scalar = fc.oneof(
      fc.constant({ type: 'string' }),
      fc.constant({ type: 'integer', minimum: 0 }),
      fc.constant({ type: 'number' }),
      fc.constant({ type: 'boolean' }),
      fc.constant({ type: 'string', enum: ['a', 'b'] }),
      fc.constant({ type: 'array', items: { type: 'string' } }),
      fc.constant({ type: 'object', allOf: [{ $ref: '#/components/schemas/Thing' }] }),
    );
    const value = fc.oneof(
      fc.constant(null),
      fc.string(),
      fc.integer(),
      fc.double(),
      fc.boolean(),
      fc.constant(['x']),
      fc.constant({ n: 1 }),
      fc.constant('a'),
    );
    fc.assert(
      fc.property(scalar, fc.boolean(), value, (base, described, sample) => {
        const openapi: Schema = { ...base, nullable: true, ...(described ? { description: 'd', default: null } : {}) };
        const components = {
          Thing: { type: 'object', required: ['n'], properties: { n: { type: 'integer' } } },
          Holder: { type: 'object', properties: { field: openapi } },
        };
        const api = new OpenApiSchemas(components);
        const converted = api.complete({ type: 'object', properties: { field: api.property('Holder', 'field') } });
        const field = (converted.properties as Record<string, Schema>).field;
        // The one portable spelling: anyOf, one type per branch, annotations on the property itself.
        expect(field.type).toBeUndefined();
        expect(field.anyOf).toEqual(expect.arrayContaining([{ type: 'null' }]));
        if (described) expect(field.description).toBe('d');
        // The same values pass as under the 3.0 schema read with nullable: null, and whatever the non-null schema takes.
        const { nullable: _n, description: _d, default: _f, ...plain } = openapi;
        const strict = JSON.parse(JSON.stringify(plain).replaceAll('#/components/schemas/', '#/$defs/'));
        const expected = sample === null || ajv.validate({ ...strict, $defs: { Thing: components.Thing } }, sample);
        expect(ajv.validate(converted, { field: sample })).toBe(expected);
      }),
      { numRuns: 300 },
    );
  });

  it('leaves orNull of a reference as the reference and null', () => {
    expect(orNull({ $ref: '#/$defs/A', description: 'why' })).toEqual({
      description: 'why',
      anyOf: [{ $ref: '#/$defs/A' }, { type: 'null' }],
    });
  });
});
