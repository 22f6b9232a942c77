import { importEsm } from '@lib/runtime';
import net from 'node:net';
import { TargetAllowlist } from './target-allowlist';
import { pinnedLookup, TargetGuard, type TargetResolver } from './target-guard';
import { TargetBlockedError, type TargetBlockReason } from './target-guard.errors';

/** Answers like DNS would, from a table; unknown names are NXDOMAIN. */
function resolverFrom(table: Record<string, string[]>): TargetResolver {
  return {
    async resolve(hostname) {
      const answer = table[hostname];
      if (!answer) throw Object.assign(new Error(`queryA ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
      return answer;
    },
  };
}

const DNS = resolverFrom({
  'example.com': ['93.184.216.34'],
  'public-v6.example.com': ['2606:4700:4700::1111'],
  'evil.example': ['93.184.216.34'],
  'rebind.attacker.example': ['127.0.0.1'],
  'mixed.attacker.example': ['93.184.216.34', '10.0.0.5'],
  'ula.attacker.example': ['fd12:3456::1'],
  'mapped.attacker.example': ['::ffff:10.0.0.1'],
  'meta.attacker.example': ['169.254.169.254'],
  'zero.attacker.example': ['0.0.0.0'],
  'empty.attacker.example': [],
  'pinned.example.com': ['127.0.0.1'],
  'intranet-app.corp.example': ['10.1.2.3'],
});

async function rejection(guard: TargetGuard, url: string): Promise<TargetBlockReason | 'passed'> {
  try {
    await guard.vet(url);
    return 'passed';
  } catch (error) {
    if (error instanceof TargetBlockedError) return error.reason;
    throw error;
  }
}

describe(TargetGuard.name, () => {
  let canary: net.Server;
  let connections = 0;
  const sockets = new Set<net.Socket>();
  let port = 0;
  let gotScraping: (url: string, options: Record<string, unknown>) => Promise<unknown>;

  beforeAll(async () => {
    ({ gotScraping } = await importEsm<{ gotScraping: typeof gotScraping }>('got-scraping'));
    canary = net.createServer((socket) => {
      connections += 1;
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.end('HTTP/1.1 200 OK\r\ncontent-length: 6\r\n\r\ncanary');
    });
    // Dual stack: catches 127.0.0.1, ::1, 0.0.0.0 and :: alike.
    await new Promise<void>((resolve) => canary.listen(0, '::', resolve));
    port = (canary.address() as net.AddressInfo).port;
  });
  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => canary.close(resolve));
  });

  const guard = () => new TargetGuard(new TargetAllowlist([]), DNS, ['scrape-gw-7.example.net']);

  // Each hostile URL points at the canary's port where a port is meaningful: if the guard let one
  // through, the fetch below would reach the canary.
  const hostile = (): Array<[string, TargetBlockReason]> => [
    [`http://127.0.0.1:${port}/`, 'private_ip'],
    [`http://127.1:${port}/`, 'private_ip'],
    [`http://2130706433:${port}/`, 'private_ip'],
    [`http://0177.0.0.1:${port}/`, 'private_ip'],
    [`http://0x7f.0.0.1:${port}/`, 'private_ip'],
    [`http://0x7f000001:${port}/`, 'private_ip'],
    [`http://0.0.0.0:${port}/`, 'private_ip'],
    [`http://0:${port}/`, 'private_ip'],
    [`http://[::]:${port}/`, 'private_ip'],
    [`http://[::1]:${port}/`, 'private_ip'],
    [`http://[::ffff:127.0.0.1]:${port}/`, 'private_ip'],
    [`http://[::ffff:7f00:1]:${port}/`, 'private_ip'],
    [`http://[::127.0.0.1]:${port}/`, 'private_ip'],
    [`http://[0:0:0:0:0:ffff:169.254.169.254]/`, 'private_ip'],
    ['http://169.254.169.254/latest/meta-data/iam/', 'private_ip'],
    ['http://[fd00:ec2::254]/latest/meta-data/', 'private_ip'],
    ['http://100.100.100.200/latest/meta-data/', 'private_ip'],
    ['http://10.0.0.1/', 'private_ip'],
    ['http://172.16.5.4/', 'private_ip'],
    ['http://192.168.1.1/', 'private_ip'],
    ['http://[fe80::1]/', 'private_ip'],
    ['http://224.0.0.1/', 'private_ip'],
    ['http://255.255.255.255/', 'private_ip'],
    ['http://198.18.0.1/', 'private_ip'],
    ['http://[64:ff9b::7f00:1]/', 'private_ip'],
    ['http://[2002:7f00:1::]/', 'private_ip'],
    [`http://user:secret@127.0.0.1:${port}/`, 'private_ip'],
    [`http://example.com@127.0.0.1:${port}/`, 'private_ip'],
    [`http://localhost:${port}/`, 'blocked_hostname'],
    [`http://LOCALHOST.:${port}/`, 'blocked_hostname'],
    [`http://api.localhost:${port}/`, 'blocked_hostname'],
    ['http://printer.local/', 'blocked_hostname'],
    ['http://metadata.google.internal/computeMetadata/v1/', 'blocked_hostname'],
    ['http://kubernetes.default.svc/', 'blocked_hostname'],
    ['http://api.default.svc.cluster.local/', 'blocked_hostname'],
    ['http://intranet/', 'blocked_hostname'],
    ['http://scrape-gw-7.example.net/', 'blocked_hostname'],
    [`http://rebind.attacker.example:${port}/`, 'private_ip'],
    [`http://mixed.attacker.example:${port}/`, 'private_ip'],
    ['http://ula.attacker.example/', 'private_ip'],
    ['http://mapped.attacker.example/', 'private_ip'],
    ['http://meta.attacker.example/', 'private_ip'],
    [`http://zero.attacker.example:${port}/`, 'private_ip'],
    ['http://nxdomain.attacker.example/', 'dns_failed'],
    ['http://empty.attacker.example/', 'dns_failed'],
    ['ftp://example.com/', 'invalid_protocol'],
    ['file:///etc/passwd', 'invalid_protocol'],
    [`gopher://127.0.0.1:${port}/_INFO`, 'invalid_protocol'],
    ['javascript:alert(1)', 'invalid_protocol'],
    ['data:text/html,<script>alert(1)</script>', 'invalid_protocol'],
    ['http://example.com:22/', 'invalid_port'],
    ['http://example.com:25/', 'invalid_port'],
    ['http://example.com:0/', 'invalid_port'],
    ['not a url', 'malformed_url'],
    ['//example.com/', 'malformed_url'],
    ['', 'malformed_url'],
    [`http://[::1:${port}/`, 'malformed_url'],
  ];

  it('refuses at least 50 hostile URLs with the right reason, and none of them opens a connection', async () => {
    const cases = hostile();
    expect(cases.length).toBeGreaterThanOrEqual(50);
    const outcomes: string[] = [];
    for (const [url, reason] of cases) {
      const got = await rejection(guard(), url);
      outcomes.push(`${url} → ${got}`);
      if (got === 'passed') {
        // A hole in the guard: fetch it exactly as the engine would, so the canary counts it.
        const target = await guard().vet(url);
        await gotScraping(url, { dnsLookup: pinnedLookup(target), timeout: { request: 2000 }, retry: { limit: 0 } }).catch(() => undefined);
      }
      expect(`${url} → ${got}`).toBe(`${url} → ${reason}`);
    }
    expect(connections).toBe(0);
  });

  it('checks the host the WHATWG parser sees, whatever the userinfo says', async () => {
    const target = await guard().vet('http://127.0.0.1%2f@evil.example/path');
    expect(target.hostname).toBe('evil.example');
    expect(target.addresses).toEqual(['93.184.216.34']);
    // The backslash is a path separator for http: this one goes to 127.0.0.1, and is refused.
    expect(new URL('http://127.0.0.1:80\\@evil.example/').hostname).toBe('127.0.0.1');
    expect(await rejection(guard(), 'http://127.0.0.1:80\\@evil.example/')).toBe('private_ip');
  });

  it('accepts public targets and returns every address to pin', async () => {
    expect(await guard().vet('https://Example.COM./a?b=1')).toMatchObject({
      hostname: 'example.com',
      port: 443,
      addresses: ['93.184.216.34'],
      allowlisted: false,
    });
    expect(await guard().vet('http://public-v6.example.com:8080/')).toMatchObject({ port: 8080, addresses: ['2606:4700:4700::1111'] });
    expect(await guard().vet('http://8.8.8.8/')).toMatchObject({ addresses: ['8.8.8.8'] });
  });

  it('exempts exactly what TARGET_ALLOWLIST lists, and nothing else', async () => {
    const allow = new TargetGuard(new TargetAllowlist([`127.0.0.1:${port}`, 'localhost:3000', '10.0.0.0/8']), DNS);
    expect(await rejection(allow, `http://127.0.0.1:${port}/`)).toBe('passed');
    expect(await rejection(allow, `http://127.0.0.1:${port + 1}/`)).toBe('private_ip');
    expect(await rejection(allow, 'http://localhost:3000/')).toBe('dns_failed');
    expect(await rejection(allow, 'http://localhost:3001/')).toBe('blocked_hostname');
    expect(await rejection(allow, 'http://intranet-app.corp.example/')).toBe('passed');
    expect(await rejection(allow, 'http://192.168.0.1/')).toBe('private_ip');
    expect(await rejection(allow, 'http://mixed.attacker.example/')).toBe('passed');
    expect(await rejection(new TargetGuard(new TargetAllowlist(['10.0.0.0/8']), DNS), 'http://mixed.attacker.example/')).toBe('passed');
    expect(await rejection(new TargetGuard(new TargetAllowlist(['192.168.0.0/16']), DNS), 'http://mixed.attacker.example/')).toBe(
      'private_ip',
    );
  });

  it('pins the connection to the vetted address and refuses to resolve any other host', async () => {
    const before = connections;
    const allow = new TargetGuard(new TargetAllowlist(['127.0.0.0/8']), DNS);
    const target = await allow.vet(`http://pinned.example.com:${port}/`);
    const response = (await gotScraping(`http://pinned.example.com:${port}/`, {
      dnsLookup: pinnedLookup(target),
      retry: { limit: 0 },
    })) as { body: string };
    expect(response.body).toBe('canary');
    expect(connections).toBe(before + 1);
    await expect(
      gotScraping(`http://example.com:${port}/`, { dnsLookup: pinnedLookup(target), retry: { limit: 0 }, timeout: { request: 2000 } }),
    ).rejects.toThrow(/refused|ENOTFOUND/);
    expect(connections).toBe(before + 1);
  });
});
