import { registerDecorator, ValidationArguments, ValidationOptions } from 'class-validator';

/** Spec 4.2 rule 2: screenshot, actions and network_capture need browser=true. */
export function RequiresBrowser(options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'requiresBrowser',
      target: target.constructor,
      propertyName: propertyName as string,
      options,
      validator: {
        validate: (value: unknown, args: ValidationArguments) => isUnset(value) || (args.object as { browser?: unknown }).browser === true,
        defaultMessage: (args: ValidationArguments) => `${args.property} requires browser=true.`,
      },
    });
}

/** Spec 4.2 rule 3: http_method cannot be combined with browser=true. */
export function NotWithBrowser(options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'notWithBrowser',
      target: target.constructor,
      propertyName: propertyName as string,
      options,
      validator: {
        validate: (value: unknown, args: ValidationArguments) => isUnset(value) || (args.object as { browser?: unknown }).browser !== true,
        defaultMessage: (args: ValidationArguments) => `${args.property} cannot be combined with browser=true (browser rendering always loads the page with GET).`,
      },
    });
}

/** A flat object of string values (headers, cookies), with limits on count and size. */
export function IsStringMap(limits: { maxEntries: number; maxValueLength: number }, options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isStringMap',
      target: target.constructor,
      propertyName: propertyName as string,
      options,
      validator: {
        validate: (value: unknown) =>
          value === null ||
          value === undefined ||
          (typeof value === 'object' &&
            !Array.isArray(value) &&
            Object.keys(value).length <= limits.maxEntries &&
            Object.entries(value).every(([k, v]) => /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(k) && typeof v === 'string' && v.length <= limits.maxValueLength && !/[\r\n]/.test(v))),
        defaultMessage: (args: ValidationArguments) =>
          `${args.property} must be an object of at most ${limits.maxEntries} name → string entries (token names, values up to ${limits.maxValueLength} characters, no line breaks).`,
      },
    });
}

/** `use_proxy`: "any", an ISO country code, a proxy-config object (validated separately) or null. */
export function IsProxySelection(options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isProxySelection',
      target: target.constructor,
      propertyName: propertyName as string,
      options,
      validator: {
        validate: (value: unknown) => value === null || value === undefined || (typeof value === 'string' && isProxyName(value)) || isProxyConfig(value),
        defaultMessage: () =>
          'use_proxy must be "any", a two-letter ISO country code, null, or {proxy?: "any" or a country code, max_retries?: 0-10, delay_seconds?: 0-60, backoff_factor?: 1-10}.',
      },
    });
}

const PROXY_CONFIG_RANGES: Record<string, [number, number]> = { max_retries: [0, 10], delay_seconds: [0, 60], backoff_factor: [1, 10] };

function isProxyConfig(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  return Object.entries(value).every(([key, v]) => {
    if (key === 'proxy') return typeof v === 'string' && isProxyName(v);
    const range = PROXY_CONFIG_RANGES[key];
    return range !== undefined && Number.isInteger(v) && (v as number) >= range[0] && (v as number) <= range[1];
  });
}

export function isProxyName(value: string): boolean {
  return value === 'any' || /^[A-Za-z]{2}$/.test(value);
}

/** `extract`: name → selector string, or {selector, multiple?, attribute?}. */
export function IsExtractionMap(options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isExtractionMap',
      target: target.constructor,
      propertyName: propertyName as string,
      options,
      validator: {
        validate: (value: unknown) => {
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
              return known && typeof s.selector === 'string' && s.selector.trim().length > 0 && (s.multiple === undefined || typeof s.multiple === 'boolean') && (s.attribute === undefined || (typeof s.attribute === 'string' && s.attribute.length > 0));
            })
          );
        },
        defaultMessage: () => 'extract must map 1-100 output names (letters, digits, _ . -) to a selector string or to {selector, multiple?, attribute?}.',
      },
    });
}

function isUnset(value: unknown): boolean {
  return value === undefined || value === null || value === false || (Array.isArray(value) && value.length === 0);
}

/** Spec 2.5: a payload is for POST only. */
export function PayloadNeedsPost(options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'payloadNeedsPost',
      target: target.constructor,
      propertyName: propertyName as string,
      options,
      validator: {
        validate: (value: unknown, args: ValidationArguments) => value === null || value === undefined || (args.object as { method?: unknown }).method === 'post',
        defaultMessage: () => 'payload is only allowed with method "post".',
      },
    });
}

/** Browser actions: objects with a known `type` (the fields of each type are the engine's to check). */
export function IsBrowserActionList(types: readonly string[], options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isBrowserActionList',
      target: target.constructor,
      propertyName: propertyName as string,
      options,
      validator: {
        validate: (value: unknown) =>
          value === null ||
          value === undefined ||
          (Array.isArray(value) && value.length <= 200 && value.every((a) => typeof a === 'object' && a !== null && !Array.isArray(a) && types.includes((a as { type?: unknown }).type as string))),
        defaultMessage: () => `actions must be a list of at most 200 objects whose type is one of: ${types.join(', ')}.`,
      },
    });
}
