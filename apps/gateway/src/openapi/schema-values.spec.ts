import fc from 'fast-check';
import fs from 'node:fs';
import path from 'node:path';
import type { ArgumentMetadata } from '@nestjs/common';
import { apiClasses } from '../../../../test/support/api-classes';
import { RequestValidationPipe } from '../http-errors/request-validation.pipe';

const ROOT = path.resolve(__dirname, '../../../..');

interface PropertySchema {
  type?: string;
  enum?: unknown[];
  nullable?: boolean;
  minimum?: number;
  maximum?: number;
  items?: PropertySchema;
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
  description?: string;
}

/** A value of what the document says, for the scalar shapes a client's generated types produce; null where it says nothing checkable. */
function valueOf(schema: PropertySchema): fc.Arbitrary<unknown> | null {
  const nullable = <T>(values: fc.Arbitrary<T>) => (schema.nullable ? fc.oneof(values, fc.constant(null)) : values);
  if (schema.enum) return nullable(fc.constantFrom(...schema.enum.filter((v) => v !== null)));
  const min = schema.minimum ?? 0;
  const max = schema.maximum ?? Math.max(min, 0) + 1000;
  if (schema.type === 'integer') return nullable(fc.integer({ min: Math.ceil(min), max: Math.floor(max) }));
  if (schema.type === 'number') return nullable(fc.double({ min, max, noNaN: true, noDefaultInfinity: true }));
  if (schema.type === 'boolean') return nullable(fc.boolean());
  if (schema.type === 'array' && schema.items) {
    const item = valueOf({ ...schema.items, nullable: false });
    if (!item) return null;
    const size = { minLength: schema.minItems ?? 0, maxLength: Math.min(schema.maxItems ?? 3, 3) };
    return nullable(schema.uniqueItems ? fc.uniqueArray(item, size) : fc.array(item, size));
  }
  return null;
}

/**
 * What the served document says a body field takes, validation takes: for every field of every
 * request body with a number, boolean or enum type (what generated clients type exactly), values
 * drawn from the documented type and bounds pass the gateway's own validation pipe with no problem
 * at that field. A document that says "object" where the server takes a number, or a bound the
 * validator does not share, fails here.
 */
describe('the OpenAPI schema values', () => {
  const document = JSON.parse(fs.readFileSync(path.join(ROOT, 'sdk/openapi.json'), 'utf8')) as {
    paths: Record<string, Record<string, { requestBody?: { content?: Record<string, { schema?: { $ref?: string } }> } }>>;
    components: { schemas: Record<string, { properties?: Record<string, PropertySchema>; required?: string[] }> };
  };
  const classes = apiClasses();
  const bodies = new Set<string>();
  for (const operations of Object.values(document.paths))
    for (const operation of Object.values(operations)) {
      const ref = operation.requestBody?.content?.['application/json']?.schema?.$ref;
      if (ref) bodies.add(ref.split('/').pop()!);
    }
  const fields: Array<{ body: string; name: string; values: fc.Arbitrary<unknown>; with: Record<string, unknown> }> = [];
  for (const body of bodies)
    for (const [name, schema] of Object.entries(document.components.schemas[body]?.properties ?? {})) {
      const values = valueOf(schema);
      // What the description says a field needs beside it ("Requires browser=true.") is sent with it.
      const needs = /Requires ([a-z_]+)=(true|false|\d+)/.exec(schema.description ?? '');
      if (values) fields.push({ body, name, values, with: needs ? { [needs[1]]: JSON.parse(needs[2]) as unknown } : {} });
    }
  const pipe = new RequestValidationPipe();

  it('finds the bodies and fields to hold', () => {
    expect([...bodies].filter((body) => !classes.has(body))).toEqual([]);
    expect(fields.length).toBeGreaterThan(30);
  });

  it.each(fields.map((f) => [`${f.body}.${f.name}`, f] as const))(
    '%s takes every value its documented type allows',
    async (_name, field) => {
      const metadata: ArgumentMetadata = { type: 'body', metatype: classes.get(field.body), data: undefined };
      await fc.assert(
        fc.asyncProperty(field.values, async (value) => {
          const body = { url: 'https://example.com/', ...field.with, [field.name]: value };
          const problems = await pipe.transform(body, metadata).then(
            () => [],
            (error: { problems?: Array<{ loc: unknown[]; msg: string }> }) => error.problems ?? [],
          );
          const here = problems.filter((p) => p.loc[1] === field.name);
          expect(here).toEqual([]);
        }),
        { numRuns: 40 },
      );
    },
  );
});
