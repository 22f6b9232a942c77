import { execFileSync } from 'node:child_process';
import puppeteer, { type Browser } from 'puppeteer-core';
import { locateChromium } from '../../apps/scrape-engine/src/browser/chromium-locator';
import { runLoad } from './load';

export interface BrowserBenchFigures {
  kind: 'light' | 'heavy';
  servicePagesPerSecond: number;
  barePagesPerSecond: number;
  /** The bare loop with a fresh browser context per page: the price of isolation alone. */
  bareIsolatedPagesPerSecond: number;
  serviceP50Ms: number;
  non2xx: number;
  /** (peak RSS of this process and its Chromium processes under load − idle) ÷ pages in flight, MB. */
  peakMbPerConcurrentPage: number;
}

/**
 * Browser pages/s through the whole service vs a bare puppeteer loop on the same Chromium binary
 * and the same page (operator contract §6): the baseline opens a page, loads it, reads the DOM and
 * closes it — no context isolation, egress filter, fingerprint, settle wait or response shaping.
 */
export async function benchBrowser(
  kind: 'light' | 'heavy',
  serviceUrl: string,
  token: string,
  pageUrl: string,
  concurrency: number,
  seconds: number,
): Promise<BrowserBenchFigures> {
  // The service's pool was warmed at start; one request makes sure this kind is up.
  await fetch(`${serviceUrl}/v1/sync/scrape`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ url: pageUrl, browser: true, browser_type: kind }),
  });
  await new Promise((resolve) => setTimeout(resolve, 500));
  const idle = treeRssMb();
  let peak = idle;
  const sampler = setInterval(() => (peak = Math.max(peak, treeRssMb())), 200);
  const body = JSON.stringify({ url: pageUrl, browser: true, browser_type: kind });
  const service = await runLoad(`${serviceUrl}/v1/sync/scrape`, { authorization: `Bearer ${token}` }, concurrency, seconds, body);
  clearInterval(sampler);
  const servicePagesPerSecond = Math.round((service.requests / service.seconds) * 10) / 10;

  // The same binary the pool uses for this kind, launched by plain puppeteer with the machine's
  // required flags only (no per-context proxy, no stealth).
  const binaries = locateChromium({
    chromePath: process.env.CHROME_PATH ?? null,
    headlessShellPath: process.env.CHROME_HEADLESS_SHELL_PATH ?? null,
  });
  const executablePath = kind === 'light' ? (binaries.headlessShell ?? binaries.chromium!) : binaries.chromium!;
  const browser = await puppeteer.launch({
    executablePath,
    headless: kind === 'light' && executablePath === binaries.headlessShell ? 'shell' : true,
    pipe: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
  const bare = await bareLoop(browser, pageUrl, concurrency, seconds, false);
  const bareIsolated = await bareLoop(browser, pageUrl, concurrency, seconds, true);
  await browser.close();
  return {
    kind,
    servicePagesPerSecond,
    barePagesPerSecond: bare,
    bareIsolatedPagesPerSecond: bareIsolated,
    serviceP50Ms: service.p50Ms,
    non2xx: service.non2xx,
    peakMbPerConcurrentPage: Math.round(((peak - idle) / concurrency) * 10) / 10,
  };
}

async function bareLoop(browser: Browser, url: string, concurrency: number, seconds: number, isolated: boolean): Promise<number> {
  const started = performance.now();
  const deadline = started + seconds * 1000;
  let count = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < deadline) {
        const context = isolated ? await browser.createBrowserContext() : null;
        const page = await (context ?? browser).newPage();
        await page.goto(url, { waitUntil: 'load' });
        await page.content();
        await page.close();
        await context?.close();
        count += 1;
      }
    }),
  );
  return Math.round((count / ((performance.now() - started) / 1000)) * 10) / 10;
}

/** RSS of this process plus every process below it (the browsers), MB. */
function treeRssMb(): number {
  const rows = execFileSync('ps', ['-eo', 'pid=,ppid=,rss='], { encoding: 'utf8' })
    .split('\n')
    .map((line) => line.trim().split(/\s+/).map(Number))
    .filter((r) => r.length === 3 && r.every(Number.isFinite));
  const children = new Map<number, Array<[number, number]>>();
  for (const [pid, ppid, rss] of rows) children.set(ppid, [...(children.get(ppid) ?? []), [pid, rss]]);
  let total = rows.find(([pid]) => pid === process.pid)?.[2] ?? 0;
  const walk = (pid: number) => {
    for (const [child, rss] of children.get(pid) ?? []) {
      total += rss;
      walk(child);
    }
  };
  walk(process.pid);
  return total / 1024;
}
