import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { corpusDirectory } from './markdown-quality';
import { call } from './collection-bench';
import { median } from './load';

const RUN_DEADLINE_MS = 600_000;

export interface ViabilityBenchFigures {
  urls: number;
  /** URLs analysed per second at standard depth over the whole corpus (wall clock of the runs). */
  urlsPerSecond: number;
  /** Verdicts on the real corpus: how many were extract_html, and the others by strategy. */
  extractHtml: number;
  others: string[];
  /** Median of (one URL's standard analysis, created_at → completed_at) ÷ median of one light-browser scrape of the same page. */
  analysisOverLightScrape: number;
  analysisMedianMs: number;
  lightScrapeMedianMs: number;
}

interface RunView {
  run_id: string;
  status: string;
  created_at: string;
  completed_at: string | null;
  results: Array<{ url: string; recommended_strategy: string; reasons: string[] }> | null;
}

/** The page corpus (corpusDirectory()), read in place (never copied), served on loopback under a CSP that keeps every page's third-party URLs inert in a browser. */
export async function startCorpusServer(): Promise<{ port: number; url: string; names: string[]; close(): Promise<void> }> {
  const dir = corpusDirectory();
  const names = fs.existsSync(dir)
    ? fs
        .readdirSync(dir)
        .filter((n) => fs.existsSync(path.join(dir, n, 'source.html')))
        .sort()
    : [];
  const server = http.createServer((req, res) => {
    const name = decodeURIComponent((req.url ?? '/').split('?')[0].slice(1));
    if (!names.includes(name)) return void res.writeHead(404).end();
    res
      .writeHead(200, { 'content-type': 'text/html', 'content-security-policy': "default-src 'self'" })
      .end(fs.readFileSync(path.join(dir, name, 'source.html')));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    names,
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/**
 * The viability analysis at standard depth (a plain GET, an extraction GET and a light render per
 * URL, at once): URLs/s over the real corpus, its verdicts, and one URL's analysis time against a
 * single light-browser scrape of the same page (goal ≤ 2: the probes run side by side).
 */
export async function benchViability(
  serviceUrl: string,
  token: string,
  corpus: { url: string; names: string[] },
  samples: number,
): Promise<ViabilityBenchFigures> {
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const post = <T>(p: string, body: unknown, expected: number) =>
    call<T>(`${serviceUrl}${p}`, { method: 'POST', headers, body: JSON.stringify(body) }, expected);
  const analyse = async (urls: string[]): Promise<RunView> => {
    const created = await post<RunView>('/v1/async/viability-test', { urls, depth: 'standard' }, 202);
    const deadline = Date.now() + RUN_DEADLINE_MS;
    for (;;) {
      const run = await call<RunView>(`${serviceUrl}/v1/async/viability-test/${created.run_id}`, { headers }, 200);
      if (run.status === 'completed') return run;
      if (Date.now() > deadline)
        throw new Error(
          `viability run ${created.run_id} not completed within ${RUN_DEADLINE_MS} ms (${JSON.stringify(run).slice(0, 200)})`,
        );
      await new Promise((r) => setTimeout(r, 100));
    }
  };

  const urls = corpus.names.map((n) => `${corpus.url}/${encodeURIComponent(n)}`);
  const started = performance.now();
  const verdicts: Array<{ url: string; recommended_strategy: string; reasons: string[] }> = [];
  for (let i = 0; i < urls.length; i += 100) verdicts.push(...((await analyse(urls.slice(i, i + 100))).results ?? []));
  const seconds = (performance.now() - started) / 1000;
  const others = verdicts
    .filter((v) => v.recommended_strategy !== 'extract_html')
    .map((v) => `${v.url.replace(`${corpus.url}/`, '')}: ${v.recommended_strategy} (${v.reasons[0]})`);

  // One URL at a time, so each figure is the latency of one analysis and of one scrape.
  const picks = urls.filter((_, i) => i % Math.max(1, Math.floor(urls.length / samples)) === 0).slice(0, samples);
  const analysisMs: number[] = [];
  const scrapeMs: number[] = [];
  for (const url of picks) {
    const t = performance.now();
    await post('/v1/sync/scrape', { url, browser: true, browser_type: 'light' }, 200);
    scrapeMs.push(performance.now() - t);
    const run = await analyse([url]);
    analysisMs.push(Date.parse(run.completed_at!) - Date.parse(run.created_at));
  }
  const analysisMedianMs = Math.round(median(analysisMs));
  const lightScrapeMedianMs = Math.round(median(scrapeMs));
  return {
    urls: verdicts.length,
    urlsPerSecond: Math.round((verdicts.length / seconds) * 100) / 100,
    extractHtml: verdicts.length - others.length,
    others,
    analysisOverLightScrape: Math.round((analysisMedianMs / lightScrapeMedianMs) * 100) / 100,
    analysisMedianMs,
    lightScrapeMedianMs,
  };
}
