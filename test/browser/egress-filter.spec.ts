import { TargetAllowlist, TargetGuard } from '@lib/target-guard';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { EgressSession, REFUSAL_HEADER } from '../../apps/scrape-engine/src/browser/egress-filter';

/** A GET through the filter as a browser sends it to an HTTP proxy (absolute URL in the request line). */
function viaProxy(proxyServer: string, target: string): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  const proxy = new URL(proxyServer);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: proxy.hostname, port: proxy.port, path: target, headers: { host: new URL(target).host } }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe(EgressSession.name, () => {
  let target: http.Server;
  let port: number;
  let hits = 0;

  beforeAll(async () => {
    target = http.createServer((_req, res) => {
      hits += 1;
      res.end('reached');
    });
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
    port = (target.address() as AddressInfo).port;
  });
  afterAll(() => new Promise((resolve) => target.close(resolve)));

  it('connects to the address the guard vetted, not to a second DNS answer (no rebinding)', async () => {
    // The guard's resolver says 127.0.0.1 (exempted for this port); the system resolver has never
    // heard of the name, so only a connection through the pinned answer can reach the target.
    const guard = new TargetGuard(new TargetAllowlist([`127.0.0.1:${port}`, `rebind.example:${port}`]), {
      resolve: async () => ['127.0.0.1'],
    });
    const session = await EgressSession.open(guard, null);
    try {
      const res = await viaProxy(session.proxyServer, `http://rebind.example:${port}/`);
      expect(res).toMatchObject({ status: 200, body: 'reached' });
    } finally {
      await session.close();
    }
  });

  it('refuses a name that resolves to a private address, says why, and never connects', async () => {
    const before = hits;
    const guard = new TargetGuard(new TargetAllowlist([]), { resolve: async () => ['127.0.0.1'] });
    const session = await EgressSession.open(guard, null);
    try {
      const res = await viaProxy(session.proxyServer, `http://evil.example:${port}/`);
      expect(res.status).toBe(403);
      expect(res.headers[REFUSAL_HEADER.toLowerCase()]).toBe('private_ip');
      expect(session.refused).toEqual([expect.objectContaining({ host: 'evil.example', port, reason: 'private_ip' })]);
      expect(hits).toBe(before);
    } finally {
      await session.close();
    }
  });
});
