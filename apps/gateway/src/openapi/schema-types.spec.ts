import fs from 'node:fs';
import path from 'node:path';
import { getMetadataStorage } from 'class-validator';
import { apiClasses } from '../../../../test/support/api-classes';

const ROOT = path.resolve(__dirname, '../../../..');

// A validator, and the schema types that say the same (an integer is a number too).
const TYPES_OF: Record<string, string[]> = {
  isInt: ['integer'],
  isNumber: ['number', 'integer'],
  isString: ['string'],
  isBoolean: ['boolean'],
  isArray: ['array'],
  isObject: ['object'],
};

/**
 * What the served OpenAPI document says a field's type is must be what validation accepts: a union
 * type (`number | null`) reflects as Object, and a document that says "object" where the server
 * takes a number makes every generated client (the two SDKs, the agent tools) type it wrong.
 */
describe('the OpenAPI schema types', () => {
  const document = JSON.parse(fs.readFileSync(path.join(ROOT, 'sdk/openapi.json'), 'utf8')) as {
    components: { schemas: Record<string, { properties?: Record<string, { type?: string; items?: { type?: string } }> }> };
  };
  const schemas = document.components.schemas;
  const storage = getMetadataStorage();
  const checked: string[] = [];
  const disagreements: string[] = [];
  for (const type of new Set(apiClasses().values())) {
    const schema = schemas[type.name];
    if (!schema?.properties) continue;
    for (const meta of storage.getTargetValidationMetadatas(type, '', true, false)) {
      const accepted = TYPES_OF[meta.name ?? ''];
      const property = schema.properties[meta.propertyName];
      if (!accepted || !property) continue;
      const declared = meta.each ? property.items?.type : property.type;
      // A $ref, oneOf or anyOf names no single type: nothing to hold it to here.
      if (declared === undefined) continue;
      checked.push(`${type.name}.${meta.propertyName}`);
      if (!accepted.includes(declared))
        disagreements.push(`${type.name}.${meta.propertyName}: documented ${declared}, validated ${meta.name}`);
    }
  }

  it('finds the fields of the API to hold', () => {
    expect(checked.length).toBeGreaterThan(100);
  });

  it('documents every validated field as the type its validator accepts', () => {
    expect(disagreements).toEqual([]);
  });
});
