import { applyDecorators, type Type } from '@nestjs/common';
import { ApiExtension, ApiResponse } from '@nestjs/swagger';
import type { DomainErrorCode } from '../http-errors/error-status.table';

/**
 * What an operation answers, declared on its handler and read by the document builder
 * (openapi-document.ts): the success status with the class the handler returns, and the domain
 * errors it can raise by their stable codes. Errors every operation of a kind can answer (auth,
 * rate limits, malformed input, an unavailable context) are added by the builder from the route's
 * traits, so a handler lists only its own.
 */

type Handler<T> = (...args: never[]) => T | Promise<T>;

/** A method decorator that only compiles on a handler returning T: the class documented is the class returned. */
export type HandlerReturning<T> = <H extends Handler<T>>(
  target: object,
  key: string | symbol,
  descriptor: TypedPropertyDescriptor<H>,
) => void;

export interface ResponseHeader {
  description: string;
  schema: { type: 'string' | 'integer' | 'boolean' };
  required?: boolean;
}

export interface ReturnsOptions<B> {
  description: string;
  headers?: Record<string, ResponseHeader>;
  /** A realistic body; typed as what the handler returns, and validated against the schema by a test. */
  example?: B;
}

export function Returns<T>(status: 200 | 201 | 202, type: Type<T>, options: ReturnsOptions<T>): HandlerReturning<T>;
export function Returns<T>(status: 200 | 201 | 202, type: [Type<T>], options: ReturnsOptions<T[]>): HandlerReturning<T[]>;
export function Returns<T>(
  status: 200 | 201 | 202,
  type: Type<T> | [Type<T>],
  options: ReturnsOptions<T> | ReturnsOptions<T[]>,
): HandlerReturning<T> | HandlerReturning<T[]> {
  const isArray = Array.isArray(type);
  const example = options.example === undefined ? {} : { example: options.example };
  return applyDecorators(
    ApiResponse({
      status,
      type: isArray ? type[0] : type,
      isArray: isArray || undefined,
      description: options.description,
      headers: options.headers,
      ...example,
    }),
  ) as HandlerReturning<T>;
}

/** Domain errors the handler (or the context it asks) can answer with, by code (HTTP_ERROR_TABLE). */
export function Fails(...codes: DomainErrorCode[]): MethodDecorator {
  return ApiExtension('x-fails', codes);
}

/**
 * The status of this route's validation answers when it is not 422: spec 4.3 gives collection
 * routes 400. The request DTO's static `validationStatus` decides at run time; a test holds the
 * two equal.
 */
export function ValidationStatus(status: 400): MethodDecorator {
  return ApiExtension('x-validation-status', status);
}

/** The success response is also answered as text in these media types (a string each), beside its JSON form. */
export function AnswersText(...mediaTypes: string[]): MethodDecorator {
  return ApiExtension('x-text-answers', mediaTypes);
}
