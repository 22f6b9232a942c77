import { registerDecorator, type ValidationArguments, type ValidationOptions } from 'class-validator';
import { pageRangesOf } from '../documents/document-terms';

/** A property validator from a predicate and a message (the class-validator plumbing, once). */
function fieldRule(
  name: string,
  validate: (value: unknown, args: ValidationArguments) => boolean,
  message: (args: ValidationArguments) => string,
) {
  return (options?: ValidationOptions): PropertyDecorator =>
    (target, propertyName) =>
      registerDecorator({
        name,
        target: target.constructor,
        propertyName: propertyName as string,
        options,
        validator: { validate, defaultMessage: message },
      });
}

/** Spec 4.2 rule 2: screenshot, actions and network_capture need browser=true. */
export const RequiresBrowser = fieldRule(
  'requiresBrowser',
  (value, args) => isUnset(value) || (args.object as { browser?: unknown }).browser === true,
  (args) => `${args.property} requires browser=true.`,
);

/** Spec 4.2 rule 3: http_method cannot be combined with browser=true. */
export const NotWithBrowser = fieldRule(
  'notWithBrowser',
  (value, args) => isUnset(value) || (args.object as { browser?: unknown }).browser !== true,
  (args) => `${args.property} cannot be combined with browser=true (browser rendering always loads the page with GET).`,
);

/** Spec 2.5: a payload is for POST only. */
export const PayloadNeedsPost = fieldRule(
  'payloadNeedsPost',
  (value, args) => value === null || value === undefined || (args.object as { method?: unknown }).method === 'post',
  () => 'payload is only allowed with method "post".',
);

/** A flat object of string values (headers, cookies), with limits on count and size. */
export function IsStringMap(limits: { maxEntries: number; maxValueLength: number }, options?: ValidationOptions): PropertyDecorator {
  return fieldRule(
    'isStringMap',
    (value) =>
      value === null ||
      value === undefined ||
      (typeof value === 'object' &&
        !Array.isArray(value) &&
        Object.keys(value).length <= limits.maxEntries &&
        Object.entries(value).every(
          ([k, v]) =>
            /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(k) && typeof v === 'string' && v.length <= limits.maxValueLength && !/[\r\n]/.test(v),
        )),
    (args) =>
      `${args.property} must be an object of at most ${limits.maxEntries} name → string entries (token names, values up to ${limits.maxValueLength} characters, no line breaks).`,
  )(options);
}

/** `use_proxy`: "any", an ISO country code, a proxy-config object or null. */
export const IsProxySelection = fieldRule(
  'isProxySelection',
  (value) => value === null || value === undefined || (typeof value === 'string' && isProxyName(value)) || isProxyConfig(value),
  () =>
    'use_proxy must be "any", a two-letter ISO country code, null, or {proxy?: "any" or a country code, max_retries?: 0-10, delay_seconds?: 0-60, backoff_factor?: 1-10}.',
);

const PROXY_CONFIG_RANGES: Record<string, [number, number]> = { max_retries: [0, 10], delay_seconds: [0, 60], backoff_factor: [1, 10] };

function isProxyConfig(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  return Object.entries(value).every(([key, v]) => {
    if (key === 'proxy') return typeof v === 'string' && isProxyName(v);
    const range = PROXY_CONFIG_RANGES[key];
    return range !== undefined && Number.isInteger(v) && (v as number) >= range[0] && (v as number) <= range[1];
  });
}

/** The pool a `use_proxy` value names ("any" or a country code), or null when it names none. */
export function proxyNameOf(useProxy: unknown): string | null {
  if (typeof useProxy === 'string') return useProxy;
  if (useProxy && typeof useProxy === 'object') return (useProxy as { proxy?: string }).proxy ?? 'any';
  return null;
}

/** The country (upper case) a `use_proxy` names, or null for none and `any`: what needs an approval (spec 4.2 rule 4). */
export function proxyCountryOf(useProxy: unknown): string | null {
  const name = proxyNameOf(useProxy);
  return name && name !== 'any' ? name.toUpperCase() : null;
}

export function isProxyName(value: string): boolean {
  return value === 'any' || /^[A-Za-z]{2}$/.test(value);
}

/** `extract`: name → selector string, or {selector, multiple?, attribute?}. */
export const IsExtractionMap = fieldRule(
  'isExtractionMap',
  (value) => {
    if (value === null || value === undefined) return true;
    if (typeof value !== 'object' || Array.isArray(value)) return false;
    const entries = Object.entries(value);
    return (
      entries.length > 0 &&
      entries.length <= 100 &&
      entries.every(([name, spec]) => {
        if (!/^[A-Za-z0-9_.-]{1,100}$/.test(name)) return false;
        if (typeof spec === 'string') return spec.trim().length > 0 && spec.length <= 2000;
        if (typeof spec !== 'object' || spec === null || Array.isArray(spec)) return false;
        const s = spec as Record<string, unknown>;
        const known = Object.keys(s).every((k) => ['selector', 'multiple', 'attribute'].includes(k));
        return (
          known &&
          typeof s.selector === 'string' &&
          s.selector.trim().length > 0 &&
          (s.multiple === undefined || typeof s.multiple === 'boolean') &&
          (s.attribute === undefined || (typeof s.attribute === 'string' && s.attribute.length > 0))
        );
      })
    );
  },
  () => 'extract must map 1-100 output names (letters, digits, _ . -) to a selector string or to {selector, multiple?, attribute?}.',
);

/** Browser actions: objects with a known `type` (the fields of each type are the engine's to check). */
export function IsBrowserActionList(types: readonly string[], options?: ValidationOptions): PropertyDecorator {
  return fieldRule(
    'isBrowserActionList',
    (value) =>
      value === null ||
      value === undefined ||
      (Array.isArray(value) &&
        value.length <= 200 &&
        value.every(
          (a) => typeof a === 'object' && a !== null && !Array.isArray(a) && types.includes((a as { type?: unknown }).type as string),
        )),
    () => `actions must be a list of at most 200 objects whose type is one of: ${types.join(', ')}.`,
  )(options);
}

function isUnset(value: unknown): boolean {
  return value === undefined || value === null || value === false || (Array.isArray(value) && value.length === 0);
}

/** A document's `pages`: ranges counted from 1 ("3", "3-10", "12-"), never backwards. */
export const IsPageRanges = fieldRule(
  'isPageRanges',
  (value) => value === null || value === undefined || (typeof value === 'string' && typeof pageRangesOf(value) !== 'string'),
  (args) => (typeof args.value === 'string' ? (pageRangesOf(args.value) as string) : 'pages must be a string such as "3-10".'),
);
