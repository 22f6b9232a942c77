import { Type } from 'class-transformer';
import { IsArray, IsInt, IsString, MaxLength, Min, MinLength, ValidateNested } from 'class-validator';
import { RequestValidationError } from '../gateway.errors';
import { RequestValidationPipe } from './request-validation.pipe';

class Item {
  @IsString()
  url: string;
}

class Body {
  @IsString()
  @MinLength(1)
  @MaxLength(10)
  name: string;

  @IsInt()
  @Min(1)
  count: number;

  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => Item)
  items: Item[];
}

async function problemsOf(value: unknown): Promise<Array<{ loc: unknown[]; type: string; msg: string }>> {
  try {
    await new RequestValidationPipe().transform(value, { type: 'body', metatype: Body });
  } catch (error) {
    expect(error).toBeInstanceOf(RequestValidationError);
    return (error as RequestValidationError).problems;
  }
  throw new Error('expected a validation error');
}

describe(RequestValidationPipe.name, () => {
  it('reports every problem at once with its location, array indexes as numbers', async () => {
    const problems = await problemsOf({ count: 0, items: [{ url: 'ok' }, { url: 5 }], extra: true });
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ loc: ['body', 'name'], type: 'string_type' }),
        expect.objectContaining({ loc: ['body', 'count'], type: 'greater_than_equal' }),
        expect.objectContaining({ loc: ['body', 'items', 1, 'url'], type: 'string_type' }),
        expect.objectContaining({ loc: ['body', 'extra'], type: 'extra_forbidden', msg: 'Unknown field "extra".' }),
      ]),
    );
    expect(problems).toHaveLength(4);
  });

  it('reports a value of the wrong type once, not again as too short or too long', async () => {
    const problems = await problemsOf({ name: 5, count: 1, items: [] });
    expect(problems.filter((p) => p.loc.join('.') === 'body.name')).toEqual([expect.objectContaining({ type: 'string_type' })]);
  });

  it.each([[[1, 2]], ['text'], [null], [42]])('rejects a non-object body %p', async (value) => {
    expect(await problemsOf(value)).toEqual([{ loc: ['body'], msg: 'The request body must be a JSON object.', type: 'dict_type' }]);
  });

  it('returns a typed instance for a valid body', async () => {
    const result = await new RequestValidationPipe().transform(
      { name: 'n', count: 2, items: [{ url: 'u' }] },
      { type: 'body', metatype: Body },
    );
    expect(result).toBeInstanceOf(Body);
  });

  it('leaves primitives (path params) alone', async () => {
    expect(await new RequestValidationPipe().transform('abc', { type: 'param', metatype: String })).toBe('abc');
  });
});
