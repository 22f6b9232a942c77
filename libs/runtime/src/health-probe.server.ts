import type { HealthReport } from '@lib/contracts';
import { carriesMetricsToken, platformMetrics } from '@lib/metrics';
import http from 'node:http';
import { drainState } from './drain-state';

export interface HealthProbeOptions {
  /** When set, GET /metrics needs `Authorization: Bearer <token>`; unset, the port's network policy is the guard. */
  metricsToken: string | null;
}

/**
 * The cluster-internal HTTP port (HEALTH_PORT) of contexts that serve no HTTP otherwise:
 * - GET /livez (/live): 200 while the process runs — a restart would not fix anything else;
 * - GET /readyz (/ready): the context's health report, 200 or 503, and 503 while draining;
 * - GET /metrics: Prometheus text (platformMetrics).
 */
export function startHealthProbeServer(
  port: number,
  report: () => Promise<HealthReport>,
  options: HealthProbeOptions = { metricsToken: null },
): Promise<http.Server> {
  const json = (res: http.ServerResponse, status: number, body: unknown) =>
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (req.method !== 'GET' && req.method !== 'HEAD') return void res.writeHead(405).end();
    if (path === '/live' || path === '/livez') return json(res, 200, { status: 'ok' });
    if (path === '/ready' || path === '/readyz') {
      if (drainState.draining) return json(res, 503, { status: 'draining' });
      report().then(
        (r) => json(res, r.status === 'ok' ? 200 : 503, r),
        (e: unknown) => json(res, 503, { status: 'down', error: String(e) }),
      );
      return;
    }
    if (path === '/metrics') {
      if (options.metricsToken && !carriesMetricsToken(req.headers.authorization, options.metricsToken))
        return json(res, 401, {
          error: { code: 'auth.missing_token', message: 'GET /metrics needs Authorization: Bearer <METRICS_TOKEN>.' },
        });
      platformMetrics.exposition().then(
        (m) => res.writeHead(200, { 'content-type': m.contentType }).end(m.body),
        (e: unknown) => json(res, 500, { error: { code: 'internal', message: String(e) } }),
      );
      return;
    }
    res.writeHead(404).end();
  });
  return new Promise((resolve) => server.listen(port, () => resolve(server)));
}
