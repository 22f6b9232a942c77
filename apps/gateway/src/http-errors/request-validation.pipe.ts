import { ArgumentMetadata, Injectable, PipeTransform } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import { toProblems } from '@lib/contracts';
import { InvalidJsonBodyError, RequestValidationError } from '../gateway.errors';
import { capProblems, inputShapeProblems } from './input-shape';
import { EMPTY_JSON_BODY, RejectedBody } from './json-body.parser';

const PRIMITIVES: unknown[] = [String, Boolean, Number, Array, Object];

/**
 * Validates bodies, queries and params into their DTO classes and reports every problem at once
 * with its location (`["body", "requests", 3, "url"]`), in the 422 form of the operator contract.
 * A DTO class with a static `validationStatus = 400` answers 400 in the same form (collection
 * bodies, spec 4.3).
 *
 * Before any transform, the input's shape is bounded (input-shape.ts): bodies were checked by the
 * JSON parser; queries and path parameters, primitive ones included, are checked here.
 */
@Injectable()
export class RequestValidationPipe implements PipeTransform {
  async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    const { metatype, type } = metadata;
    const status = (metatype as { validationStatus?: 400 | 422 } | undefined)?.validationStatus ?? 422;
    if (value === EMPTY_JSON_BODY) throw new InvalidJsonBodyError('The request declares a JSON body but sent none.');
    if (value instanceof RejectedBody) throw new RequestValidationError(value.problems, status);
    if (type === 'query' || type === 'param') {
      const problems = inputShapeProblems(
        value,
        metadata.data ? [type === 'param' ? 'path' : 'query', metadata.data] : [type === 'param' ? 'path' : 'query'],
      );
      if (problems.length > 0) throw new RequestValidationError(problems, status);
    }
    if (!metatype || PRIMITIVES.includes(metatype) || type === 'custom') return value;
    if (type === 'body' && value !== undefined && (value === null || typeof value !== 'object' || Array.isArray(value))) {
      throw new RequestValidationError([{ loc: ['body'], msg: 'The request body must be a JSON object.', type: 'dict_type' }], status);
    }
    const instance = plainToInstance(metatype as new () => object, value ?? {}, { enableImplicitConversion: type !== 'body' });
    const errors = await validate(instance, { whitelist: true, forbidNonWhitelisted: true, forbidUnknownValues: false });
    if (errors.length > 0) throw new RequestValidationError(capProblems(toProblems(errors, [type]), [type]), status);
    return instance;
  }
}
