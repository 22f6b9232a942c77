import { currentCorrelationId } from '@lib/logging';
import fastify from 'fastify';
import { installRequestCorrelation } from './request-correlation';

describe(installRequestCorrelation.name, () => {
  it('runs the later hooks, the body parser, the handler and what it awaits in the request id', async () => {
    const app = fastify({ genReqId: (req) => String(req.headers['x-request-id'] ?? 'generated') });
    installRequestCorrelation(app);
    const seen: Record<string, string | undefined> = {};
    app.addHook('onRequest', async () => {
      await new Promise((resolve) => setTimeout(resolve, 2));
      seen.onRequest = currentCorrelationId();
    });
    app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => {
      seen.parser = currentCorrelationId();
      done(null, JSON.parse(body as string));
    });
    app.post('/probe', async (request) => {
      const before = currentCorrelationId();
      await new Promise((resolve) => setTimeout(resolve, 5));
      return { before, after: currentCorrelationId(), body: request.body };
    });
    const response = await app.inject({ method: 'POST', url: '/probe', headers: { 'x-request-id': 'trace-abc' }, payload: { a: 1 } });
    expect(response.json()).toEqual({ before: 'trace-abc', after: 'trace-abc', body: { a: 1 } });
    expect(seen).toEqual({ onRequest: 'trace-abc', parser: 'trace-abc' });
    // Each request its own scope, and none outside a request.
    expect((await app.inject({ method: 'POST', url: '/probe', payload: {} })).json().after).toBe('generated');
    expect(currentCorrelationId()).toBeUndefined();
    await app.close();
  });
});
