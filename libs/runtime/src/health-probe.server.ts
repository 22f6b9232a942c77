import type { HealthReport } from '@lib/contracts';
import http from 'node:http';

/**
 * A tiny HTTP endpoint for Kubernetes probes of contexts that serve no HTTP otherwise:
 * GET /live → 200 while the process runs; GET /ready → the context's health report, 200 or 503.
 */
export function startHealthProbeServer(port: number, report: () => Promise<HealthReport>): Promise<http.Server> {
  const server = http.createServer((req, res) => {
    if (req.url === '/live') {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}');
      return;
    }
    if (req.url === '/ready') {
      report().then(
        (r) => res.writeHead(r.status === 'ok' ? 200 : 503, { 'content-type': 'application/json' }).end(JSON.stringify(r)),
        (e: unknown) =>
          res.writeHead(503, { 'content-type': 'application/json' }).end(JSON.stringify({ status: 'down', error: String(e) })),
      );
      return;
    }
    res.writeHead(404).end();
  });
  return new Promise((resolve) => server.listen(port, () => resolve(server)));
}
