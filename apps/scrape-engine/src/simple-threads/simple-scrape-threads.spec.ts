import { loadPlatformConfig } from '@lib/config';
import { ScrapeRequest } from '@lib/contracts';
import http from 'node:http';
import { MainContentReader } from '../formats/main-content-reader';
import { validated } from '../sync-scrape/scrape-execution';
import { simpleScrapeExecutorFor } from './simple-scrape-thread';
import { SimpleScrapeThreads } from './simple-scrape-threads';

/**
 * Simple scrapes on engine threads answer exactly as on the event loop; a lone scrape stays on the
 * event loop, concurrent ones go to the thread; domain errors keep their code across; a thread that
 * dies fails what it held as transport.worker_lost and is replaced; an idle thread ends.
 */
describe('SimpleScrapeThreads', () => {
  let server: http.Server;
  let base: string;
  let reader: MainContentReader;
  const held: Array<() => void> = [];
  const page = `<!doctype html><html><head><title>Threads</title><meta name="description" content="d"></head><body>
    <nav><a href="/a">A</a></nav><main><article><h1>Heading</h1>${'<p>Some readable text, <a href="/x">a link</a>. </p>'.repeat(40)}
    <ul><li>one</li><li>two</li></ul><span class="price">12.50</span></article></main></body></html>`;

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      const send = () => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'x-fixture': 'yes' }).end(page);
      if (req.url?.startsWith('/held')) held.push(send);
      else if (req.url === '/missing') res.writeHead(404, { 'content-type': 'text/html' }).end('<html><body>Not here</body></html>');
      else send();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    reader = await MainContentReader.load();
  });

  afterAll(async () => {
    held.splice(0).forEach((send) => send());
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const configFor = (env: Record<string, string> = {}) =>
    loadPlatformConfig({ TARGET_ALLOWLIST: base.replace('http://', ''), LOG_LEVEL: 'silent', ...env });
  const request = (plain: Record<string, unknown>) => validated(ScrapeRequest, plain);
  /** The executor on the event loop, counting what it is given. */
  const countingLocal = (config: ReturnType<typeof configFor>) => {
    const executor = simpleScrapeExecutorFor(config, reader);
    const local = { calls: 0, execute: (r: ScrapeRequest) => ((local.calls += 1), executor.execute(r)) };
    return local;
  };
  /** What differs between two fetches of the same page: the clock. */
  const withoutTimings = ({ facts, result }: { facts: { response?: { headers: object } | null }; result: object }) => ({
    facts: { ...facts, response: facts.response && { ...facts.response, headers: { ...facts.response.headers, date: undefined } } },
    result: {
      ...result,
      executionTime: undefined,
      timings: undefined,
      guidance: { ...(result as { guidance: object }).guidance, timings: undefined },
    },
  });
  /** Answers the held requests once they have arrived (a release before then would find none, and the scrape would wait out its timeout). */
  const releaseHeld = async (count = 1) => {
    while (held.length < count) await new Promise((r) => setTimeout(r, 10));
    held.splice(0).forEach((send) => send());
  };
  /** Two scrapes at once start a thread; it is ready once its modules have loaded (seconds, compiled from source here). */
  const untilThreadReady = async (threads: SimpleScrapeThreads) => {
    await Promise.all([1, 2].map(() => request({ url: `${base}/page` }).then((r) => threads.execute(r))));
    for (let waited = 0; waited < 30_000 && threads.readyThreads === 0; waited += 50) await new Promise((r) => setTimeout(r, 50));
    expect(threads.readyThreads).toBe(1);
  };

  it('runs a lone scrape on the event loop and concurrent ones on a thread, with the same answers', async () => {
    const config = configFor();
    const local = countingLocal(config);
    const threads = new SimpleScrapeThreads(local, config);
    try {
      const asks = [
        { url: `${base}/page`, format: 'html' },
        { url: `${base}/page`, format: 'markdown', include_metadata: true },
        { url: `${base}/page`, format: 'markdown', only_main_content: false, extract: { price: '.price' } },
        { url: `${base}/missing` },
      ];
      const alone = [];
      for (const ask of asks) alone.push(await threads.execute(await request(ask)));
      expect(local.calls).toBe(asks.length);
      expect(threads.readyThreads).toBe(0);

      await untilThreadReady(threads);
      const before = local.calls;
      // One held scrape keeps another in flight, so each of these goes to the thread.
      const holding = threads.execute(await request({ url: `${base}/held` }));
      const onThread = [];
      for (const ask of asks) onThread.push(await threads.execute(await request(ask)));
      expect(local.calls).toBe(before + 1);
      expect(onThread.map(withoutTimings)).toEqual(alone.map(withoutTimings));
      expect(onThread[1].result.markdown).toContain('# Heading');
      await releaseHeld();
      await holding;
    } finally {
      await threads.close();
    }
  }, 60_000);

  it('keeps a domain error’s code across the thread', async () => {
    const config = configFor();
    const threads = new SimpleScrapeThreads(countingLocal(config), config);
    try {
      await untilThreadReady(threads);
      const holding = threads.execute(await request({ url: `${base}/held` }));
      // The SSRF guard refuses a link-local (cloud metadata) address.
      const refused = await threads.execute(await request({ url: 'http://169.254.169.254/latest' })).catch((e: unknown) => e);
      const alone = await simpleScrapeExecutorFor(config, reader)
        .execute(await request({ url: 'http://169.254.169.254/latest' }))
        .catch((e: unknown) => e);
      expect(alone).toMatchObject({ code: expect.stringMatching(/^target\./) });
      expect(refused).toMatchObject({ code: (alone as { code: string }).code, message: (alone as Error).message });
      await releaseHeld();
      await holding;
    } finally {
      await threads.close();
    }
  }, 60_000);

  it('fails the scrapes a dead thread held with transport.worker_lost, and starts another', async () => {
    const config = configFor();
    const threads = new SimpleScrapeThreads(countingLocal(config), config);
    try {
      await untilThreadReady(threads);
      const first = threads.execute(await request({ url: `${base}/held` }));
      const onThread = threads.execute(await request({ url: `${base}/held?2` })).catch((e: unknown) => e);
      while (held.length < 2) await new Promise((r) => setTimeout(r, 10));
      const [thread] = (threads as unknown as { threads: Array<{ worker: { terminate(): Promise<number> } }> }).threads;
      await thread.worker.terminate();
      expect(await onThread).toMatchObject({ code: 'transport.worker_lost' });
      expect(threads.readyThreads).toBe(0);
      await releaseHeld();
      await first;
      await untilThreadReady(threads);
    } finally {
      await threads.close();
    }
  }, 60_000);

  it('keeps scrapes on the event loop, and starts no other thread for a while, when one fails to load', async () => {
    const config = configFor();
    const local = countingLocal(config);
    // The thread builds its SSRF guard from this list, and an entry that is no CIDR range throws there.
    const threads = new SimpleScrapeThreads(local, { ...config, targetAllowlist: ['not-a-range/99'] });
    const internals = threads as unknown as { threads: unknown[] };
    try {
      const both = () => Promise.all([1, 2].map(async () => threads.execute(await request({ url: `${base}/page` }))));
      await both();
      expect(internals.threads).toHaveLength(1);
      for (let waited = 0; waited < 30_000 && internals.threads.length > 0; waited += 50) await new Promise((r) => setTimeout(r, 50));
      expect(internals.threads).toHaveLength(0);
      await both();
      expect(internals.threads).toHaveLength(0);
      expect(local.calls).toBe(4);
    } finally {
      await threads.close();
    }
  }, 60_000);

  it('ends a thread after the idle interval (also after a request that could not cross), and never starts one when told not to', async () => {
    const idle = configFor({ MEMORY_RECLAIM_IDLE_SECONDS: '1' });
    const threads = new SimpleScrapeThreads(countingLocal(idle), idle);
    try {
      await untilThreadReady(threads);
      // A request that cannot cross (a function in it) is refused, and the thread owes nothing for it: it still idles out.
      const holding = threads.execute(await request({ url: `${base}/held` }));
      const uncloneable = Object.assign(await request({ url: `${base}/page` }), { hook: () => undefined });
      await expect(threads.execute(uncloneable)).rejects.toThrow(/could not be cloned/);
      await releaseHeld();
      await holding;
      await new Promise((r) => setTimeout(r, 1_500));
      expect(threads.readyThreads).toBe(0);
    } finally {
      await threads.close();
    }
    const none = configFor({ SIMPLE_ENGINE_THREADS: '0' });
    const local = countingLocal(none);
    const inline = new SimpleScrapeThreads(local, none);
    await Promise.all(Array.from({ length: 8 }, async () => inline.execute(await request({ url: `${base}/page` }))));
    expect(local.calls).toBe(8);
    expect(inline.readyThreads).toBe(0);
  }, 60_000);
});
