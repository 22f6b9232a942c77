import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Monitors on a local site whose pages change on a known script (issue 63): 1,000 pages; between
 * two ticks 10 % change their text, 10 % only their clock, 10 % only their advert, 5 % are gone,
 * the rest stay. Change detection is scored against the script with the ignore rules and without;
 * a tick's pages/s is set beside a 1,000-URL collection run of the same pages, in the same process;
 * and what a tick where nothing changed adds to the stored versions.
 */
export interface MonitorBenchResult {
  pages: number;
  withRules: { precision: number; recall: number; reported: number };
  withoutRules: { precision: number; recall: number; reported: number };
  /** The median paired round's tick (10 % of pages changed, polled to its report). */
  tickPagesPerSecond: number;
  /** The scored tick (35 % of pages moved), from its own started_at and completed_at. */
  firstChangeTickPagesPerSecond: number;
  /** A tick in which no page changed. */
  quietTickPagesPerSecond: number;
  /** The median paired round's collection run (polled to completed). */
  collectionPagesPerSecond: number;
  /** Each round's tick ÷ collection. */
  throughputRatios: number[];
  /** Version bytes a tick added in which nothing changed, per page (goal ≈ 0). */
  unchangedBytesPerPage: number;
  /** Version bytes the first tick stored, per page. */
  baselineBytesPerPage: number;
}

const PAGES = 1000;
const THROUGHPUT_ROUNDS = 7;
type Fate = 'text' | 'clock' | 'advert' | 'gone' | 'same';
const fateOf = (i: number): Fate => (i % 20 < 2 ? 'text' : i % 20 < 4 ? 'clock' : i % 20 < 6 ? 'advert' : i % 20 === 6 ? 'gone' : 'same');

function pageHtml(i: number, version: number): string {
  const fate = fateOf(i);
  // Odd versions move the pages their fate names, even versions put them back: every advance moves them.
  const moved = version % 2 === 1;
  const text = fate === 'text' && moved ? `Revised article ${i}: the terms changed.` : `Article ${i}: the terms as published.`;
  const clock = fate === 'clock' && moved ? '18:45:12' : '09:00:00';
  const advert = fate === 'advert' && moved ? 'winter coats' : 'summer shoes';
  return `<!doctype html><html><head><title>Page ${i}</title></head><body><h1>Page ${i}</h1>${`<p>${text} Plenty of steady text around it. </p>`.repeat(20)}<p>Rendered at ${clock}.</p><div class="ad">Advert: ${advert}</div></body></html>`;
}

/** The scripted site: /page/<i> at version 0, one version further at each `advance()` (gone pages 404 from version 1 on). */
export async function startScriptedSite(): Promise<{ url: string; port: number; advance(): void; close(): Promise<void> }> {
  let version = 0;
  const server = http.createServer((req, res) => {
    const i = Number(/^\/page\/(\d+)$/.exec(req.url ?? '')?.[1] ?? -1);
    if (i < 0 || i >= PAGES || (version > 0 && fateOf(i) === 'gone')) return res.writeHead(404).end('gone');
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(pageHtml(i, version));
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    advance: () => (version += 1),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

export async function benchMonitors(
  baseUrl: string,
  token: string,
  site: { url: string; advance(): void },
  versionBytes: () => Promise<number>,
): Promise<MonitorBenchResult> {
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const call = async <T>(path: string, init: RequestInit = {}): Promise<T> => {
    const response = await fetch(`${baseUrl}${path}`, { ...init, headers });
    if (!response.ok) throw new Error(`${init.method ?? 'GET'} ${path}: ${response.status} ${await response.text()}`);
    return response.json() as Promise<T>;
  };
  const urls = Array.from({ length: PAGES }, (_, i) => `${site.url}/page/${i}`);
  type Tick = { tick_id: string; status: string; started_at: string; completed_at: string | null; changes: number | null };
  const reportedTicks = async (id: string, n: number): Promise<Tick[]> => {
    for (const deadline = Date.now() + 600_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 100))) {
      const { ticks } = await call<{ ticks: Tick[] }>(`/v1/monitors/${id}/ticks`);
      if (ticks.filter((t) => t.changes !== null).length >= n) return ticks;
    }
    throw new Error(`monitor ${id}: ${n} ticks not reported in 600 s`);
  };
  // The tick's run completed (its report, written by the ticker's next pass, is not waited for),
  // polled as the collection run is.
  const completedTicks = async (id: string, n: number): Promise<void> => {
    for (const deadline = Date.now() + 600_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 50))) {
      const { ticks } = await call<{ ticks: Tick[] }>(`/v1/monitors/${id}/ticks`);
      if (ticks.length >= n && ticks.every((t) => t.status === 'completed')) return;
    }
    throw new Error(`monitor ${id}: ${n} ticks not completed in 600 s`);
  };
  const create = (ignore: Record<string, string[]> | undefined) =>
    call<{ id: string }>('/v1/monitors', {
      method: 'POST',
      body: JSON.stringify({ urls, schedule: { interval_seconds: 86_400 }, ignore }),
    });
  const withRules = await create({ selectors: ['.ad'], patterns: ['\\d{2}:\\d{2}:\\d{2}'] });
  const withoutRules = await create(undefined);
  await reportedTicks(withRules.id, 1);
  await reportedTicks(withoutRules.id, 1);
  const baselineBytes = await versionBytes();

  site.advance();
  const score = async (id: string) => {
    await call(`/v1/monitors/${id}/tick`, { method: 'POST' });
    const [tick] = await reportedTicks(id, 2);
    const { changes } = await call<{ changes: Array<{ url: string; tick_id: string; change_status: string }> }>(
      `/v1/monitors/${id}/changes?limit=1000`,
    );
    const reported = new Set(changes.filter((c) => c.tick_id === tick.tick_id).map((c) => Number(c.url.split('/').pop())));
    const truth = new Set(urls.map((_, i) => i).filter((i) => fateOf(i) === 'text' || fateOf(i) === 'gone'));
    const hits = [...reported].filter((i) => truth.has(i)).length;
    const seconds = (Date.parse(tick.completed_at!) - Date.parse(tick.started_at)) / 1000;
    return { precision: round3(hits / Math.max(1, reported.size)), recall: round3(hits / truth.size), reported: reported.size, seconds };
  };
  const scoredWith = await score(withRules.id);
  const scoredWithout = await score(withoutRules.id);

  // A third tick of the ruled monitor: nothing moved since the second.
  const beforeQuiet = await versionBytes();
  await call(`/v1/monitors/${withRules.id}/tick`, { method: 'POST' });
  const [quietTick] = await reportedTicks(withRules.id, 3);
  const quietSeconds = (Date.parse(quietTick.completed_at!) - Date.parse(quietTick.started_at)) / 1000;
  const quietBytes = (await versionBytes()) - beforeQuiet;

  // Throughput: paired rounds, each a tick of the ruled monitor after the site moved (its text
  // pages changed, the rest the same) and a collection run of the same 1,000 pages, both timed from
  // the request that starts them; the figure is the median round's ratio.
  const collection = await call<{ id: string }>('/v1/async/collections', {
    method: 'POST',
    body: JSON.stringify({ name: 'monitor-bench', requests: urls.map((url) => ({ url, format: 'markdown' })) }),
  });
  const rounds: Array<{ tick: number; collection: number }> = [];
  for (let round = 0; round < THROUGHPUT_ROUNDS; round += 1) {
    site.advance();
    const tickStarted = performance.now();
    await call(`/v1/monitors/${withRules.id}/tick`, { method: 'POST' });
    await completedTicks(withRules.id, 4 + round);
    const tickSeconds = (performance.now() - tickStarted) / 1000;
    const started = performance.now();
    const { run_id } = await call<{ run_id: string }>(`/v1/async/collections/${collection.id}/run`, { method: 'POST' });
    for (;;) {
      const run = await call<{ status: string }>(`/v1/async/collections/${collection.id}/runs/${run_id}`);
      if (run.status === 'completed') break;
      await new Promise((r) => setTimeout(r, 50));
    }
    rounds.push({ tick: PAGES / tickSeconds, collection: PAGES / ((performance.now() - started) / 1000) });
  }
  const ratios = rounds.map((r) => r.tick / r.collection);
  const medianRound = rounds[ratios.indexOf([...ratios].sort((x, y) => x - y)[Math.floor(ratios.length / 2)])];
  for (const id of [withRules.id, withoutRules.id]) await call(`/v1/monitors/${id}`, { method: 'DELETE' });
  return {
    pages: PAGES,
    withRules: { precision: scoredWith.precision, recall: scoredWith.recall, reported: scoredWith.reported },
    withoutRules: { precision: scoredWithout.precision, recall: scoredWithout.recall, reported: scoredWithout.reported },
    tickPagesPerSecond: round3(medianRound.tick),
    firstChangeTickPagesPerSecond: round3(PAGES / scoredWith.seconds),
    quietTickPagesPerSecond: round3(PAGES / quietSeconds),
    collectionPagesPerSecond: round3(medianRound.collection),
    throughputRatios: ratios.map(round3),
    unchangedBytesPerPage: round3(quietBytes / PAGES),
    baselineBytesPerPage: round3(baselineBytes / (2 * PAGES)),
  };
}

function round3(n: number): number {
  return Math.round(n * 1000) / 1000;
}
