import { AuthenticationRequiredError } from '@lib/errors';
import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import type { AuthenticatedClient } from '../clients/client-directory';
import type { Admission } from './request-admission';

/** A request admission has let in: the authenticated client is there. */
export type AdmittedCall = Admission & { client: AuthenticatedClient };

/**
 * The caller of a client or admin route, as admission let it in (`@Caller() caller: AdmittedCall`):
 * its client, limits and request id, and the admission the usage headers are written from. On a
 * route admission let in without a client (a public one) this is a bug, answered as a 401.
 */
export const Caller = createParamDecorator((_data: unknown, context: ExecutionContext): AdmittedCall => {
  const admission = context.switchToHttp().getRequest<FastifyRequest>().admission;
  if (!admission?.client) throw new AuthenticationRequiredError('Authentication required: send Authorization: Bearer <API_KEY>.');
  return admission as AdmittedCall;
});
