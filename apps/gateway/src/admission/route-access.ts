import { applyDecorators } from '@nestjs/common';
import { RouteConfig } from '@nestjs/platform-fastify';
import { ApiExtension } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';

/**
 * Who may call a route. Declared on the handler and read by admission in Fastify's onRequest hook
 * (before body parsing), so a missing token is a 401 even when the body is also malformed.
 * Unmatched routes count as `client`: unknown paths need a token before they say 404.
 * The document builder reads the same declaration (x-access) for security and the auth errors.
 */
export type RouteAccessLevel = 'public' | 'client' | 'admin';

export const Access = (level: RouteAccessLevel): MethodDecorator =>
  applyDecorators(RouteConfig({ access: level }), ApiExtension('x-access', level));

export function accessLevelOf(request: FastifyRequest): RouteAccessLevel {
  const config = request.routeOptions?.config as { access?: RouteAccessLevel } | undefined;
  return config?.access ?? 'client';
}
