import 'reflect-metadata';
import { loadPlatformConfig } from '@lib/config';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { startPlatform } from '../../apps/platform/src/platform';
import { WINDOW_UI_FEATURES_OFF } from '../../apps/scrape-engine/src/browser/browser-launcher';
import { locateChromium } from '../../apps/scrape-engine/src/browser/chromium-locator';
import { bareStealthLoop } from './browser-bench';
import { median, runLoad } from './load';

/**
 * The stealth self-test (issue 38): public bot-detection suites served from loopback, read by each
 * browser kind through the real scrape path (`POST /v1/sync/scrape` with `evaluate` actions, as a
 * client would), one row per check and kind.
 *
 * `npm run stealth-check [-- --json] [--kinds heavy,light,heavy-mobile] [--expect FILE] [--write-expect FILE] [--throughput [--rounds N]]`.
 * `--expect` fails (exit 1) when heavy fails a check the file lists as passed: CI runs it against
 * `bench/stealth/heavy-expected.json`, so a Chromium upgrade or a dependency bump that makes the
 * heavy browser detectable fails the build. STEALTH_SUITES_DIR names the suites' folder (default:
 * the copies in `bench/stealth`, MIT, see its README). `--throughput` adds what heavy's stealth costs:
 * heavy pages/s through the service ÷ a bare puppeteer-extra loop with every stealth evasion, each
 * page in a fresh context at 1920×1080, in paired rounds (heavyThroughput).
 */

export type Verdict = 'pass' | 'fail' | 'not run';

export interface CheckRow {
  suite: string;
  check: string;
  verdicts: Record<string, Verdict>;
  detail: Record<string, string>;
}

interface SuiteReading {
  /** check → verdict and what the suite said */
  checks: Record<string, { verdict: Verdict; detail: string }>;
  error: string | null;
}

const KINDS = ['heavy', 'light', 'heavy-mobile'] as const;

// Every check each suite can report, so a check that stayed silent still gets its row. Brotector
// only ever reports detections: its rows pass unless the check fired.
const BROTECTOR_CHECKS = [
  'navigator.webdriver',
  'runtime.enabled',
  'stack.signature',
  'window.cdc',
  'PWinitScript',
  'UA_Override',
  'pdfStyle',
  'Input.untrusted',
  'Input.cordinatesLeak',
  'canvasMouseVisualizer',
  'SeleniumScriptInjection',
];

/** The loopback server of the suites, with stand-ins for the two remote resources rebrowser's page asks for. */
export async function serveSuites(suitesDir: string, chromiumVersion: () => string): Promise<{ port: number; close(): Promise<void> }> {
  const fpscanner = fs.readFileSync(require.resolve('fpscanner/dist/fpScanner.es.js'), 'utf8');
  const botd = fs.readFileSync(path.join(require.resolve('@fingerprintjs/botd'), '..', 'botd.esm.js'), 'utf8');
  // A second origin for rebrowser's CSP check: its script must be refused by the page's CSP, and
  // if a browser ignores CSP it loads from here, on loopback, rather than from w3schools.com.
  const otherOrigin = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/javascript' }).end('/* loaded */'));
  await new Promise<void>((resolve) => otherOrigin.listen(0, '127.0.0.1', resolve));
  const otherPort = (otherOrigin.address() as { port: number }).port;
  const types: Record<string, string> = {
    '.html': 'text/html; charset=utf-8',
    '.js': 'text/javascript',
    '.css': 'text/css',
    '.pdf': 'application/pdf',
    '.ico': 'image/x-icon',
  };
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname === '/stand-in/chromiumdash') {
      // What chromiumdash answers for the latest stable release: the installed version, so the check
      // judges the browser, not this machine's upgrade schedule.
      return res
        .writeHead(200, { 'content-type': 'application/json', 'access-control-allow-origin': '*' })
        .end(JSON.stringify([{ version: chromiumVersion(), time: Date.now() }]));
    }
    if (url.pathname === '/throughput/page') return res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(THROUGHPUT_PAGE);
    if (url.pathname === '/throughput/style.css') return res.writeHead(200, { 'content-type': 'text/css' }).end('p { margin: 0 0 1em }');
    if (url.pathname === '/throughput/app.js')
      return res.writeHead(200, { 'content-type': 'text/javascript' }).end('document.title += " (scripted)";');
    if (url.pathname === '/fpscanner/' || url.pathname === '/fpscanner/index.html') {
      return res
        .writeHead(200, {
          'content-type': 'text/html; charset=utf-8',
          'content-security-policy': "default-src 'self' blob:; script-src 'self' 'unsafe-inline' blob:; worker-src 'self' blob:",
        })
        .end(FPSCANNER_PAGE);
    }
    if (url.pathname === '/fpscanner/fpScanner.es.js') {
      return res.writeHead(200, { 'content-type': 'text/javascript' }).end(fpscanner);
    }
    if (url.pathname === '/botd/') {
      return res
        .writeHead(200, {
          'content-type': 'text/html; charset=utf-8',
          'content-security-policy': "default-src 'self' 'unsafe-inline' blob: data:",
        })
        .end(BOTD_PAGE);
    }
    if (url.pathname === '/botd/botd.esm.js') {
      return res.writeHead(200, { 'content-type': 'text/javascript' }).end(botd);
    }
    const file = path.resolve(suitesDir, `.${decodeURIComponent(url.pathname).replace(/\/$/, '/index.html')}`);
    if (!file.startsWith(path.resolve(suitesDir) + path.sep) || !fs.existsSync(file) || !fs.statSync(file).isFile()) {
      return res.writeHead(404).end();
    }
    let body: string | Buffer = fs.readFileSync(file);
    if (file.endsWith(path.join('rebrowser-bot-detector', 'index.js'))) {
      body = body
        .toString('utf8')
        .replace(/https:\/\/chromiumdash\.appspot\.com\/fetch_releases\?[^'"`]*/, '/stand-in/chromiumdash')
        .replace('https://www.w3schools.com/js/myScript.js', `http://127.0.0.1:${otherPort}/myScript.js`);
    }
    res.writeHead(200, { 'content-type': types[path.extname(file)] ?? 'application/octet-stream' }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    close: async () => {
      await new Promise((resolve) => server.close(resolve));
      await new Promise((resolve) => otherOrigin.close(resolve));
    },
  };
}

// The browser bench's page (bench/src/main.ts): a 20 KB article with a stylesheet and a script.
const THROUGHPUT_PAGE = `<!doctype html><html><head><title>Bench</title><link rel="stylesheet" href="/throughput/style.css"></head><body><h1>Bench page</h1>${'<p>Readable paragraph text for the benchmark page. </p>'.repeat(400)}<script src="/throughput/app.js"></script></body></html>`;

const FPSCANNER_PAGE = `<!doctype html><html><head><meta charset="utf-8"><title>fpscanner</title></head><body>
<pre id="result">pending</pre>
<script type="module">
import FingerprintScanner from '/fpscanner/fpScanner.es.js';
new FingerprintScanner().collectFingerprint({ encrypt: false })
  .then((fp) => { document.getElementById('result').textContent = JSON.stringify({ bot: fp.fastBotDetection, details: fp.fastBotDetectionDetails, signals: fp.signals }); })
  .catch((e) => { document.getElementById('result').textContent = JSON.stringify({ error: String(e) }); });
</script></body></html>`;

const BOTD_PAGE = `<!doctype html><html><head><meta charset="utf-8"><title>BotD</title></head><body>
<pre id="result">pending</pre>
<script type="module">
import { load } from '/botd/botd.esm.js';
load().then((b) => b.detect())
  .then((r) => { document.getElementById('result').textContent = JSON.stringify(r); })
  .catch((e) => { document.getElementById('result').textContent = JSON.stringify({ error: String(e) }); });
</script></body></html>`;

interface ScrapeAnswer {
  statusCode?: number;
  evaluate_results?: Array<{ value: unknown; error: string | null }> | null;
  guidance?: { error_type?: string; message?: string } | null;
}

type Scrape = (body: Record<string, unknown>) => Promise<ScrapeAnswer>;

/** A kind is a browser type, or `heavy-mobile`: heavy with `window_size: mobile` (reported, never expected). */
function browserOf(kind: string): { browser_type: string; window_size?: string } {
  const [type, size] = kind.split('-');
  return size === 'mobile' ? { browser_type: type, window_size: 'mobile' } : { browser_type: type };
}

/** The last evaluate's value, or why there is none. */
function lastValue(answer: ScrapeAnswer): { value: unknown; error: string | null } {
  const last = answer.evaluate_results?.at(-1);
  if (!last)
    return {
      value: null,
      error: `no evaluate result (status ${answer.statusCode}, ${answer.guidance?.error_type ?? 'no guidance'}: ${answer.guidance?.message ?? ''})`,
    };
  return { value: last.value, error: last.error };
}

async function readRebrowser(scrape: Scrape, base: string, kind: string): Promise<SuiteReading> {
  // The calls its page asks an automation script to make (its "how to run" box): a main-world call,
  // a DOM call whose stack is inspected, then a wait so its repeated checks run, then the verdicts.
  const answer = await scrape({
    url: `${base}/rebrowser-bot-detector/index.html`,
    browser: true,
    ...browserOf(kind),
    actions: [
      { type: 'wait-for-timeout', time: 500 },
      { type: 'evaluate', script: 'window.dummyFn()' },
      { type: 'evaluate', script: "document.getElementById('detections-json') !== null" },
      { type: 'wait-for-timeout', time: 1500 },
      {
        type: 'evaluate',
        script: 'JSON.stringify(window.detections.map((d) => ({ type: d.type, rating: d.rating, note: d.note, debug: d.debug })))',
      },
    ],
  });
  const { value, error } = lastValue(answer);
  if (typeof value !== 'string') return { checks: {}, error: error ?? 'no verdicts' };
  const checks: SuiteReading['checks'] = {};
  for (const d of JSON.parse(value) as Array<{ type: string; rating: number; note: string; debug?: unknown }>) {
    const note = d.note
      .replace(/<[^>]+>/g, '')
      .replace(/\s+/g, ' ')
      .trim();
    const debug =
      d.debug === undefined
        ? ''
        : ` ${typeof d.debug === 'string' ? d.debug.split('\n').slice(0, 3).join(' | ') : JSON.stringify(d.debug)}`;
    checks[d.type] = { verdict: d.rating < 0 ? 'pass' : d.rating === 0 ? 'not run' : 'fail', detail: `${note}${debug}`.slice(0, 300) };
  }
  return { checks, error: null };
}

async function readBrotector(scrape: Scrape, base: string, kind: string): Promise<SuiteReading> {
  const answer = await scrape({
    url: `${base}/brotector/index.html?crash=false`,
    browser: true,
    ...browserOf(kind),
    actions: [
      { type: 'wait-for-timeout', time: 1000 },
      // A person's click on the page's button: the suite inspects the events' coordinates.
      { type: 'click', selector: '#clickHere', optional: true },
      { type: 'wait-for-timeout', time: 1000 },
      {
        type: 'evaluate',
        script: 'JSON.stringify((window.brotector ? window.brotector.detections : null))',
      },
    ],
  });
  const { value, error } = lastValue(answer);
  if (typeof value !== 'string' || value === 'null') return { checks: {}, error: error ?? 'the suite did not start' };
  const checks: SuiteReading['checks'] = Object.fromEntries(BROTECTOR_CHECKS.map((c) => [c, { verdict: 'pass' as Verdict, detail: '' }]));
  for (const d of JSON.parse(value) as Array<{ detection: string; type?: string; score: number; data?: unknown }>) {
    const detail = `${d.type ?? ''} score ${d.score} ${d.data === undefined ? '' : JSON.stringify(d.data)}`.trim().slice(0, 300);
    const previous = checks[d.detection];
    checks[d.detection] = { verdict: 'fail', detail: previous?.verdict === 'fail' ? previous.detail : detail };
  }
  return { checks, error: null };
}

/** A suite page of ours that writes its verdict as JSON into `#result`: the verdict once written, or why there is none. */
async function resultOf<T>(
  scrape: Scrape,
  url: string,
  kind: string,
): Promise<{ result: T; error: null } | { result: null; error: string }> {
  const answer = await scrape({
    url,
    browser: true,
    ...browserOf(kind),
    actions: [
      { type: 'wait-for-selector', selector: '//pre[@id="result" and text()!="pending"]', time: 10000 },
      { type: 'evaluate', script: "document.getElementById('result').textContent" },
    ],
  });
  const { value, error } = lastValue(answer);
  return typeof value === 'string' ? { result: JSON.parse(value) as T, error: null } : { result: null, error: error ?? 'no verdict' };
}

async function readFpscanner(scrape: Scrape, base: string, kind: string): Promise<SuiteReading> {
  const { result, error } = await resultOf<{
    bot?: boolean;
    error?: string;
    details?: Record<string, { detected: boolean; severity: string }>;
    signals?: Record<string, Record<string, unknown>>;
  }>(scrape, `${base}/fpscanner/`, kind);
  if (!result) return { checks: {}, error };
  if (result.error || !result.details) return { checks: {}, error: result.error ?? 'no details' };
  const s = result.signals ?? {};
  const context = JSON.stringify({
    ua: (s.browser?.userAgent as string | undefined)?.slice(0, 60),
    platform: (s.device as { platform?: string } | undefined)?.platform,
    webgl: s.graphics?.webGL,
    worker: s.contexts?.webWorker,
  });
  const checks: SuiteReading['checks'] = {
    fastBotDetection: { verdict: result.bot ? 'fail' : 'pass', detail: result.bot ? context.slice(0, 300) : '' },
  };
  for (const [name, rule] of Object.entries(result.details)) {
    checks[name] = { verdict: rule.detected ? 'fail' : 'pass', detail: rule.detected ? `severity ${rule.severity}` : '' };
  }
  return { checks, error: null };
}

async function readBotd(scrape: Scrape, base: string, kind: string): Promise<SuiteReading> {
  const { result, error } = await resultOf<{ bot?: boolean; botKind?: string; error?: string }>(scrape, `${base}/botd/`, kind);
  if (!result) return { checks: {}, error };
  if (result.error || result.bot === undefined) return { checks: {}, error: result.error ?? 'no verdict' };
  return { checks: { bot: { verdict: result.bot ? 'fail' : 'pass', detail: result.bot ? `botKind ${result.botKind}` : '' } }, error: null };
}

/** Our own lie detector (bench/stealth/lie-detector, issue 68): each technique on each function and value, a lie or not. */
async function readLieDetector(scrape: Scrape, base: string, kind: string): Promise<SuiteReading> {
  const { result, error } = await resultOf<{ checks?: Record<string, { lie: boolean; detail: string }>; error?: string }>(
    scrape,
    `${base}/lie-detector/`,
    kind,
  );
  if (!result) return { checks: {}, error };
  if (result.error || !result.checks) return { checks: {}, error: result.error ?? 'no checks' };
  return {
    checks: Object.fromEntries(
      Object.entries(result.checks).map(([name, { lie, detail }]) => [name, { verdict: lie ? 'fail' : 'pass', detail }] as const),
    ),
    error: null,
  };
}

const SUITES: Array<{ name: string; read: (scrape: Scrape, base: string, kind: string) => Promise<SuiteReading> }> = [
  { name: 'rebrowser', read: readRebrowser },
  { name: 'brotector', read: readBrotector },
  { name: 'fpscanner', read: readFpscanner },
  { name: 'botd', read: readBotd },
  { name: 'lies', read: readLieDetector },
];

/** Every check of every suite for each kind, through a running service. */
export async function runStealthCheck(options: {
  serviceUrl: string;
  token: string;
  suitesBase: string;
  kinds: readonly string[];
}): Promise<{ rows: CheckRow[]; errors: string[] }> {
  const scrape: Scrape = async (body) => {
    const res = await fetch(`${options.serviceUrl}/v1/sync/scrape`, {
      method: 'POST',
      headers: { authorization: `Bearer ${options.token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const answer = (await res.json()) as ScrapeAnswer & { detail?: string };
    if (!res.ok) throw new Error(`scrape answered ${res.status}: ${answer.detail ?? JSON.stringify(answer).slice(0, 200)}`);
    return answer;
  };
  const rows = new Map<string, CheckRow>();
  const errors: string[] = [];
  for (const suite of SUITES) {
    for (const kind of options.kinds) {
      let reading: SuiteReading;
      try {
        reading = await suite.read(scrape, options.suitesBase, kind);
      } catch (error) {
        reading = { checks: {}, error: error instanceof Error ? error.message : String(error) };
      }
      if (reading.error) errors.push(`${suite.name} (${kind}): ${reading.error}`);
      for (const [check, { verdict, detail }] of Object.entries(reading.checks)) {
        const key = `${suite.name}\u0000${check}`;
        const row = rows.get(key) ?? { suite: suite.name, check, verdicts: {}, detail: {} };
        row.verdicts[kind] = verdict;
        if (detail && verdict !== 'pass') row.detail[kind] = detail;
        rows.set(key, row);
      }
    }
  }
  for (const row of rows.values()) for (const kind of options.kinds) row.verdicts[kind] ??= 'not run';
  return { rows: [...rows.values()], errors };
}

/** The table printed for people: one row per check, a column per kind, then what each failure said. */
export function stealthTable(rows: CheckRow[], kinds: readonly string[]): string {
  const mark = (v: Verdict) => (v === 'pass' ? 'pass' : v === 'fail' ? 'FAIL' : '—');
  const lines = [`| suite | check | ${kinds.join(' | ')} |`, `|---|---|${kinds.map(() => '---|').join('')}`];
  for (const row of rows)
    lines.push(`| ${row.suite} | ${row.check} | ${kinds.map((k) => mark(row.verdicts[k] ?? 'not run')).join(' | ')} |`);
  const totals = kinds.map((k) => {
    const run = rows.filter((r) => r.verdicts[k] !== 'not run');
    return `${k} ${run.filter((r) => r.verdicts[k] === 'pass').length}/${run.length}`;
  });
  lines.push('', `passed: ${totals.join(', ')}`);
  const failures = rows.flatMap((r) => kinds.filter((k) => r.detail[k]).map((k) => `- ${r.suite} ${r.check} (${k}): ${r.detail[k]}`));
  if (failures.length) lines.push('', ...failures);
  return lines.join('\n');
}

/** Heavy checks the expectation lists as passed that fail now. */
export function heavyRegressions(rows: CheckRow[], expected: { heavy_passes: string[] }): string[] {
  const now = new Map(rows.map((r) => [`${r.suite}/${r.check}`, r.verdicts.heavy]));
  return expected.heavy_passes.filter((check) => now.get(check) !== 'pass').map((check) => `${check}: ${now.get(check) ?? 'missing'}`);
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const option = (name: string) => {
    const at = args.indexOf(name);
    return at >= 0 ? args[at + 1] : undefined;
  };
  const kinds = (option('--kinds') ?? KINDS.join(',')).split(',').filter(Boolean);
  const suitesDir = process.env.STEALTH_SUITES_DIR ?? path.resolve(__dirname, '../../../bench/stealth');
  let version = '';
  const suites = await serveSuites(suitesDir, () => version);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stealth-check-'));
  const platform = await startPlatform(
    loadPlatformConfig({
      ...process.env,
      DATA_DIR: dataDir,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent',
      TARGET_ALLOWLIST: `127.0.0.1:${suites.port}`,
      // One client with 4 pages in flight for --throughput; its share is BROWSER_CONCURRENCY − 1,
      // counting a page until its context closed (bench/src/main.ts says the same).
      BROWSER_CONCURRENCY: process.env.BROWSER_CONCURRENCY ?? '6',
      DATABASE_URL: '',
      NATS_URL: '',
    }),
  );
  let exitCode = 0;
  try {
    const admin = platform.bootstrapTokens.find((t) => t.clientId === 'admin')!.token!;
    const created = (await fetch(`${platform.url}/v1/admin/clients`, {
      method: 'POST',
      headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
      body: JSON.stringify({ plan: 'enterprise' }),
    }).then((r) => r.json())) as { token: string };
    version = await chromiumVersionOf(platform.url, created.token, suites.port);
    const { rows, errors } = await runStealthCheck({
      serviceUrl: platform.url,
      token: created.token,
      suitesBase: `http://127.0.0.1:${suites.port}`,
      kinds,
    });
    const throughput = args.includes('--throughput')
      ? await heavyThroughput(
          platform.url,
          created.token,
          `http://127.0.0.1:${suites.port}/throughput/page`,
          Number(option('--rounds') ?? 3),
        )
      : null;
    if (args.includes('--json'))
      process.stdout.write(`${JSON.stringify({ chromium: version, kinds, rows, errors, throughput }, null, 2)}\n`);
    else
      process.stdout.write(
        `Chromium ${version}\n\n${stealthTable(rows, kinds)}\n${errors.length ? `\nerrors:\n${errors.map((e) => `- ${e}`).join('\n')}\n` : ''}${
          throughput
            ? `\nheavy ÷ bare puppeteer-extra stealth (fresh context per page, 1920×1080, 4 in flight): median ${throughput.medianRatio} (${throughput.rounds
                .map((r) => `${r.servicePagesPerSecond} vs ${r.barePagesPerSecond} pages/s`)
                .join('; ')})\n`
            : ''
        }`,
      );
    const write = option('--write-expect');
    if (write) {
      const passes = rows.filter((r) => r.verdicts.heavy === 'pass').map((r) => `${r.suite}/${r.check}`);
      fs.writeFileSync(write, `${JSON.stringify({ heavy_passes: passes }, null, 2)}\n`);
    }
    const expectFile = option('--expect');
    if (expectFile) {
      const regressions = heavyRegressions(rows, JSON.parse(fs.readFileSync(expectFile, 'utf8')) as { heavy_passes: string[] });
      if (regressions.length || errors.length) {
        process.stderr.write(
          `stealth-check: heavy regressed on ${regressions.length} check(s):\n${[...regressions, ...errors].map((r) => `- ${r}`).join('\n')}\n`,
        );
        exitCode = 1;
      } else process.stderr.write(`stealth-check: heavy passes every expected check (${rows.length} rows)\n`);
    }
  } finally {
    await platform.stop();
    await suites.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
  process.exit(exitCode);
}

export interface ThroughputReading {
  rounds: Array<{ servicePagesPerSecond: number; barePagesPerSecond: number; ratio: number }>;
  medianRatio: number;
}

/**
 * Heavy through the service against puppeteer-extra with every stealth evasion on the same binary,
 * 4 pages in flight, each in a fresh context at 1920×1080 with the window UI off (what heavy's
 * pages are too), `rounds` paired windows of `seconds`: the median of the rounds' ratios.
 */
export async function heavyThroughput(
  serviceUrl: string,
  token: string,
  pageUrl: string,
  rounds = 3,
  seconds = 10,
): Promise<ThroughputReading> {
  const binaries = locateChromium({ chromePath: process.env.CHROME_PATH ?? null, headlessShellPath: null });
  const body = JSON.stringify({ url: pageUrl, browser: true, browser_type: 'heavy' });
  const headers = { authorization: `Bearer ${token}` };
  await runLoad(`${serviceUrl}/v1/sync/scrape`, headers, 4, 2, body); // warm
  const readings: ThroughputReading['rounds'] = [];
  for (let round = 0; round < rounds; round += 1) {
    const service = await runLoad(`${serviceUrl}/v1/sync/scrape`, headers, 4, seconds, body);
    const servicePagesPerSecond = Math.round(((service.requests - service.non2xx) / service.seconds) * 10) / 10;
    const barePagesPerSecond = await bareStealthLoop(binaries.chromium!, pageUrl, 4, seconds, { width: 1920, height: 1080 }, [
      `--disable-features=${WINDOW_UI_FEATURES_OFF.join(',')}`,
    ]);
    readings.push({
      servicePagesPerSecond,
      barePagesPerSecond,
      ratio: Math.round((servicePagesPerSecond / barePagesPerSecond) * 1000) / 1000,
    });
  }
  return { rounds: readings, medianRatio: median(readings.map((r) => r.ratio)) };
}

/** The browser's own version, read through the service (the user agent data's full version list). */
async function chromiumVersionOf(serviceUrl: string, token: string, port: number): Promise<string> {
  const res = await fetch(`${serviceUrl}/v1/sync/scrape`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      url: `http://127.0.0.1:${port}/brotector/style.css`,
      browser: true,
      browser_type: 'light',
      actions: [
        { type: 'evaluate', script: "navigator.userAgentData.getHighEntropyValues(['uaFullVersion']).then((v) => v.uaFullVersion)" },
      ],
    }),
  });
  const body = (await res.json()) as ScrapeAnswer;
  const value = body.evaluate_results?.[0]?.value;
  return typeof value === 'string' ? value : '0';
}

if (require.main === module) {
  main().catch((error: unknown) => {
    process.stderr.write(`stealth-check failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  });
}
