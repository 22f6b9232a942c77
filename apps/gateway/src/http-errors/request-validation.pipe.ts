import { ArgumentMetadata, Injectable, PipeTransform } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { validate, ValidationError } from 'class-validator';
import { RequestValidationError, ValidationProblem } from '../gateway.errors';

const PRIMITIVES: unknown[] = [String, Boolean, Number, Array, Object];

// class-validator constraint → the contract's problem `type` (pydantic-like names clients know).
const PROBLEM_TYPES: Record<string, string> = {
  isDefined: 'missing',
  whitelistValidation: 'extra_forbidden',
  isString: 'string_type',
  isInt: 'int_type',
  isNumber: 'number_type',
  isBoolean: 'bool_type',
  isArray: 'list_type',
  isObject: 'dict_type',
  isIn: 'enum',
  isEnum: 'enum',
  length: 'string_length',
  maxLength: 'string_too_long',
  minLength: 'string_too_short',
  min: 'greater_than_equal',
  max: 'less_than_equal',
  matches: 'string_pattern_mismatch',
  arrayMaxSize: 'too_long',
  arrayUnique: 'list_unique',
  requiresBrowser: 'requires_browser',
  notWithBrowser: 'invalid_combination',
  payloadNeedsPost: 'invalid_combination',
  isProxySelection: 'proxy_selection',
  isStringMap: 'string_map',
  isExtractionMap: 'extraction_map',
  isBrowserActionList: 'action_list',
};

/**
 * Validates bodies, queries and params into their DTO classes and reports every problem at once
 * with its location (`["body", "requests", 3, "url"]`), in the 422 form of the operator contract.
 */
@Injectable()
export class RequestValidationPipe implements PipeTransform {
  async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    const { metatype, type } = metadata;
    if (!metatype || PRIMITIVES.includes(metatype) || type === 'custom') return value;
    if (type === 'body' && value !== undefined && (value === null || typeof value !== 'object' || Array.isArray(value))) {
      throw new RequestValidationError([{ loc: ['body'], msg: 'The request body must be a JSON object.', type: 'dict_type' }]);
    }
    const instance = plainToInstance(metatype as new () => object, value ?? {}, { enableImplicitConversion: type !== 'body' });
    const errors = await validate(instance, { whitelist: true, forbidNonWhitelisted: true, forbidUnknownValues: false });
    if (errors.length > 0) throw new RequestValidationError(toProblems(errors, [type]));
    return instance;
  }
}

// When a value has the wrong type, its length or range checks only repeat the problem.
const TYPE_CONSTRAINTS = new Set(['isDefined', 'isString', 'isInt', 'isNumber', 'isBoolean', 'isArray', 'isObject']);

export function toProblems(errors: ValidationError[], prefix: Array<string | number>): ValidationProblem[] {
  return errors.flatMap((error) => {
    const loc = [...prefix, /^\d+$/.test(error.property) ? Number(error.property) : error.property];
    const constraints = Object.entries(error.constraints ?? {});
    const typeProblems = constraints.filter(([constraint]) => TYPE_CONSTRAINTS.has(constraint));
    const own = (typeProblems.length > 0 ? typeProblems : constraints).map(([constraint, msg]) => ({
      loc,
      msg: constraint === 'whitelistValidation' ? `Unknown field "${error.property}".` : msg,
      type: PROBLEM_TYPES[constraint] ?? constraint.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`),
    }));
    return [...own, ...toProblems(error.children ?? [], loc)];
  });
}
