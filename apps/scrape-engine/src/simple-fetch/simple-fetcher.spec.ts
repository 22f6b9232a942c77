import { importEsm } from '@lib/runtime';
import { TargetAllowlist, TargetBlockedError, TargetGuard } from '@lib/target-guard';
import net from 'node:net';
import { type FixtureSite, startFixtureSite } from '../../../../test/support/fixture-site';
import { BodyTooLarge, ConnectionFailure, FetchTimeout, RedirectBlocked, TooManyRedirects } from './fetch-failures';
import { acceptLanguageFor, SimpleFetcher } from './simple-fetcher';

describe(SimpleFetcher.name, () => {
  let site: FixtureSite;
  let fetcher: SimpleFetcher;
  let canary: net.Server;
  let canaryPort: number;
  let canaryHits = 0;

  beforeAll(async () => {
    site = await startFixtureSite();
    canary = net.createServer((s) => {
      canaryHits += 1;
      s.destroy();
    });
    await new Promise<void>((r) => canary.listen(0, '127.0.0.1', r));
    canaryPort = (canary.address() as net.AddressInfo).port;
    // Exactly the fixture's port is allowed; the canary's is not.
    fetcher = new SimpleFetcher(new TargetGuard(new TargetAllowlist([`127.0.0.1:${site.port}`])));
  });
  afterAll(async () => {
    await site.close();
    await new Promise((r) => canary.close(r));
  });

  it('sends browser-like headers, custom headers, cookies and the language', async () => {
    const res = await fetcher.fetch({
      url: `${site.url}/echo`,
      headers: { 'X-Custom': 'yes' },
      cookies: { session: 'abc', theme: 'dark' },
      language: 'de-DE',
    });
    const echoed = JSON.parse(res.text!);
    expect(echoed.method).toBe('GET');
    expect(echoed.headers['user-agent']).toMatch(/Mozilla\/5\.0/);
    expect(echoed.headers['x-custom']).toBe('yes');
    expect(echoed.headers.cookie).toBe('session=abc; theme=dark');
    expect(echoed.headers['accept-language']).toBe('de-DE,de;q=0.9');
    expect(acceptLanguageFor('en')).toBe('en');
  });

  it('picks a mobile user agent for window_size=mobile', async () => {
    const res = await fetcher.fetch({ url: `${site.url}/echo`, windowSize: 'mobile' });
    expect(JSON.parse(res.text!).headers['user-agent']).toMatch(/Mobile|Android|iPhone/);
  });

  it.each([
    ['json', '{"q":"tea","n":2}', 'application/json'],
    ['form', 'q=tea&n=2', 'application/x-www-form-urlencoded'],
  ] as const)('POSTs a %s payload', async (contentType, body, mime) => {
    const res = await fetcher.fetch({ url: `${site.url}/echo`, method: 'post', payload: { q: 'tea', n: 2 }, contentType });
    const echoed = JSON.parse(res.text!);
    expect(echoed).toMatchObject({ method: 'POST', body });
    expect(echoed.headers['content-type']).toContain(mime);
  });

  it('follows redirects hop by hop and reports them; 303 turns a POST into a GET', async () => {
    const res = await fetcher.fetch({ url: `${site.url}/redirect/3` });
    expect(res.statusCode).toBe(200);
    expect(res.redirects).toEqual([`${site.url}/redirect/2`, `${site.url}/redirect/1`, `${site.url}/page`]);
    const seeOther = await fetcher.fetch({ url: `${site.url}/see-other`, method: 'post', payload: { a: 1 } });
    expect(JSON.parse(seeOther.text!).method).toBe('GET');
    await expect(fetcher.fetch({ url: `${site.url}/redirect/12` })).rejects.toBeInstanceOf(TooManyRedirects);
  });

  it.each([
    ['a loopback port that is not allowlisted', () => `http://127.0.0.1:${canaryPort}/`],
    ['cloud metadata', () => 'http://169.254.169.254/latest/meta-data/'],
    ['localhost by name', () => `http://localhost:${canaryPort}/`],
    ['a non-http scheme', () => 'file:///etc/passwd'],
  ])('refuses a redirect to %s without connecting', async (_label, target) => {
    const before = canaryHits;
    const error = await fetcher.fetch({ url: `${site.url}/redirect-to?url=${encodeURIComponent(target())}` }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RedirectBlocked);
    expect(canaryHits).toBe(before);
  });

  it('refuses a non-public first URL before any connection', async () => {
    await expect(fetcher.fetch({ url: `http://127.0.0.1:${canaryPort}/` })).rejects.toBeInstanceOf(TargetBlockedError);
    expect(canaryHits).toBe(0);
  });

  it('times out on the total budget', async () => {
    const started = Date.now();
    const error = await fetcher.fetch({ url: `${site.url}/slow?ms=3000`, totalTimeoutMs: 300 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FetchTimeout);
    expect((error as FetchTimeout).timings.total_ms).toBeGreaterThanOrEqual(250);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('stops reading a body over the cap', async () => {
    await expect(fetcher.fetch({ url: `${site.url}/big?bytes=300000`, maxBodyBytes: 100_000 })).rejects.toBeInstanceOf(BodyTooLarge);
    expect((await fetcher.fetch({ url: `${site.url}/big?bytes=50000`, maxBodyBytes: 100_000 })).body.length).toBe(50_000);
  });

  it('keeps binary bodies as bytes and decodes declared charsets', async () => {
    const pdf = await fetcher.fetch({ url: `${site.url}/file.pdf` });
    expect(pdf).toMatchObject({ contentType: 'application/pdf', text: null });
    expect(pdf.body.subarray(0, 5).toString()).toBe('%PDF-');
    expect((await fetcher.fetch({ url: `${site.url}/latin1` })).text).toBe('<p>Café crème</p>');
  });

  it('reports the status of error pages instead of throwing', async () => {
    expect((await fetcher.fetch({ url: `${site.url}/status/503` })).statusCode).toBe(503);
  });

  it('classifies a refused connection', async () => {
    const closed = await new Promise<number>((resolve) => {
      const s = net.createServer().listen(0, '127.0.0.1', () => {
        const port = (s.address() as net.AddressInfo).port;
        s.close(() => resolve(port));
      });
    });
    const guarded = new SimpleFetcher(new TargetGuard(new TargetAllowlist([`127.0.0.1:${closed}`])));
    await expect(guarded.fetch({ url: `http://127.0.0.1:${closed}/` })).rejects.toBeInstanceOf(ConnectionFailure);
  });

  it('goes through a proxy when given one', async () => {
    const { Server } = await importEsm<{
      Server: new (o: object) => { listen(): Promise<void>; close(force: boolean): Promise<void>; port: number };
    }>('proxy-chain');
    let proxied = 0;
    const proxy = new Server({ port: 0, host: '127.0.0.1', prepareRequestFunction: () => ((proxied += 1), {}) });
    await proxy.listen();
    try {
      const res = await fetcher.fetch({ url: `${site.url}/page`, proxyUrl: `http://127.0.0.1:${proxy.port}` });
      expect(res.statusCode).toBe(200);
      expect(proxied).toBe(1);
    } finally {
      await proxy.close(true);
    }
  });
});
