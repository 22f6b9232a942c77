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

/**
 * A Kubernetes probe (livez, readyz): public, and not rate limited — a node's kubelet probes
 * every pod from one address, and a probe answered 429 would take healthy pods out of service.
 */
export const Probe = (): MethodDecorator =>
  applyDecorators(RouteConfig({ access: 'public', probe: true }), ApiExtension('x-access', 'public'));

export function isProbe(request: FastifyRequest): boolean {
  return (request.routeOptions?.config as { probe?: boolean } | undefined)?.probe === true;
}

export function accessLevelOf(request: FastifyRequest): RouteAccessLevel {
  const config = request.routeOptions?.config as { access?: RouteAccessLevel } | undefined;
  return config?.access ?? 'client';
}
