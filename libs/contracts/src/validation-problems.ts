import type { ValidationError } from 'class-validator';

/** One problem of a request, in the contract's 422 item form (operator contract §5). */
export interface ValidationProblem {
  loc: Array<string | number>;
  msg: string;
  type: string;
}

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
  urlRequired: 'url_required',
  invalidUrl: 'invalid_url',
};

// When a value has the wrong type, its length or range checks only repeat the problem.
const TYPE_CONSTRAINTS = new Set(['isDefined', 'isString', 'isInt', 'isNumber', 'isBoolean', 'isArray', 'isObject']);

/**
 * class-validator's error tree as a flat list of located problems (`["body", "requests", 3, "url"]`),
 * shared by the gateway's 422 bodies and a collection's invalid_items.
 */
export function toProblems(errors: ValidationError[], prefix: Array<string | number>): ValidationProblem[] {
  return errors.flatMap((error) => {
    const loc = [...prefix, /^\d+$/.test(error.property) ? Number(error.property) : error.property];
    const constraints = Object.entries(error.constraints ?? {});
    // A missing URL is said once, as that (target-url-rules.ts), not as its type or length too.
    const required = constraints.filter(([constraint]) => constraint === 'urlRequired');
    const typeProblems = constraints.filter(([constraint]) => TYPE_CONSTRAINTS.has(constraint));
    const own = (required.length > 0 ? required : typeProblems.length > 0 ? typeProblems : constraints).map(([constraint, msg]) => ({
      loc,
      msg: constraint === 'whitelistValidation' ? `Unknown field "${error.property}".` : msg,
      type: PROBLEM_TYPES[constraint] ?? constraint.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`),
    }));
    return [...own, ...toProblems(error.children ?? [], loc)];
  });
}
