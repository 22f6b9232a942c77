import { registerDecorator, type ValidationOptions } from 'class-validator';

/**
 * The rules every target URL field shares, so that a missing URL and text that is no URL are told
 * the same way wherever a URL is asked for: `url_required` and `invalid_url` in the 422 list.
 * Whether a well-formed URL may be fetched is the SSRF guard's to say (libs/target-guard).
 */

/** Text an http(s) target can be: an absolute URL, http or https, with a host. */
export function isHttpUrlText(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

/** Missing, null or blank: `url_required` — reported alone, not as a type or a length problem (validation-problems.ts). */
export function UrlRequired(options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'urlRequired',
      target: target.constructor,
      propertyName: String(propertyName),
      options: { message: `${String(propertyName)} is required: an absolute http(s) URL such as https://example.com/.`, ...options },
      validator: {
        validate: (value: unknown) => !(value === undefined || value === null || (typeof value === 'string' && value.trim() === '')),
      },
    });
}

/**
 * Text that is no http(s) URL ("not a url", "ftp://…", "example.com" without a scheme): `invalid_url`.
 * A blank value is UrlRequired's and another type IsString's, so each problem is told once.
 */
export function IsHttpUrlText(options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'invalidUrl',
      target: target.constructor,
      propertyName: String(propertyName),
      options: {
        message: options?.each
          ? `each of ${String(propertyName)} must be an absolute http(s) URL such as https://example.com/.`
          : `${String(propertyName)} must be an absolute http(s) URL such as https://example.com/.`,
        ...options,
      },
      validator: { validate: (value: unknown) => typeof value !== 'string' || value.trim() === '' || isHttpUrlText(value) },
    });
}
