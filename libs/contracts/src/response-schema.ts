import type { Type } from '@nestjs/common';
import { type ApiPropertyOptions, getSchemaPath } from '@nestjs/swagger';
import type { SchemaObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';

/**
 * Property schemas for response classes that @ApiProperty cannot say by itself, written for
 * OpenAPI 3.0 as Redocly checks it (`nullable` always beside a `type`) and as openapi-typescript
 * reads it (a map is `additionalProperties`; an open object says so explicitly).
 */

// Classes reached only through a hand-built $ref; the document builder registers them as models.
const referencedModels = new Set<Type<unknown>>();

export function modelsReferencedByName(): Array<Type<unknown>> {
  return [...referencedModels];
}

function refOf(model: Type<unknown>): string {
  referencedModels.add(model);
  return getSchemaPath(model);
}

// ApiPropertyOptions is a union keyed on `type`; these shapes are valid schemas it does not model.
function asOptions(schema: SchemaObject): ApiPropertyOptions {
  return schema as ApiPropertyOptions;
}

/** A property holding another response class, or null. */
export function nullableObject(model: Type<unknown>, description?: string): ApiPropertyOptions {
  return asOptions({ type: 'object', nullable: true, allOf: [{ $ref: refOf(model) }], description });
}

/** A map from free keys (a domain, a client id, a date) to another response class. */
export function mapOf(model: Type<unknown>, description?: string): ApiPropertyOptions {
  return asOptions({ type: 'object', additionalProperties: { $ref: refOf(model) }, description });
}

/** Any JSON value (what a page's script returned, what a selector extracted). */
export const ANY_JSON_VALUE: SchemaObject = {
  anyOf: [
    { type: 'string', nullable: true },
    { type: 'number' },
    { type: 'boolean' },
    { type: 'object', additionalProperties: true },
    { type: 'array', items: {} },
  ],
};

export function anyJsonValue(description?: string): ApiPropertyOptions {
  return asOptions({ ...ANY_JSON_VALUE, description });
}

/** A map from free keys to lists of another response class. */
export function mapOfLists(model: Type<unknown>, description?: string): ApiPropertyOptions {
  return asOptions({ type: 'object', additionalProperties: { type: 'array', items: { $ref: refOf(model) } }, description });
}

/** An object whose keys are the client's own (extract names, suggested request fields). */
export function openObject(description?: string, options: { nullable?: boolean; values?: SchemaObject } = {}): ApiPropertyOptions {
  return asOptions({
    type: 'object',
    additionalProperties: options.values ?? true,
    ...(options.nullable ? { nullable: true } : {}),
    description,
  });
}
