import puppeteer, { type Browser } from 'puppeteer-core';
import { MACHINE_ARGS, WINDOW_UI_FEATURES_OFF } from '../../apps/scrape-engine/src/browser/browser-launcher';
import { locateChromium } from '../../apps/scrape-engine/src/browser/chromium-locator';
import { type LoadResult, median, runLoad } from './load';
import { memoryOfTreeMb } from './process-bench';

export interface BrowserBenchFigures {
  kind: 'light' | 'heavy';
  /** The median of the paired rounds' service windows. */
  servicePagesPerSecond: number;
  barePagesPerSecond: number;
  /** The bare loop with a fresh browser context per page: the price of isolation alone (median of the rounds). */
  bareIsolatedPagesPerSecond: number;
  /** Each round's service ÷ fresh-context loop, windows taken in turn. */
  pairedIsolatedRatios: number[];
  medianIsolatedRatio: number;
  serviceP50Ms: number;
  non2xx: number;
  /** heavy only: the isolated bare loop on puppeteer-extra with the stealth plugin (all its evasions), what heavy promises a site. */
  bareStealthIsolatedPagesPerSecond: number | null;
  /**
   * heavy only: the same loop at the service's window (1920×1080, `window_size: desktop`, the
   * default) instead of puppeteer's 800×600, which detection suites flag: the baseline renders what
   * the service renders.
   */
  bareStealthDesktopPagesPerSecond: number | null;
  /**
   * heavy only: the desktop loop with the per-window browser UI off as the service launches it
   * (WINDOW_UI_FEATURES_OFF): a baseline given the same flag, so the ratio shows what the service
   * adds, not what one flag saves (~1.3 s of CPU per new context on Chromium 156).
   */
  bareStealthDesktopNoWindowUiPagesPerSecond: number | null;
  /** (peak RSS of this process and its Chromium processes under load − idle) ÷ pages in flight, MB: shared pages counted in every process. */
  peakMbPerConcurrentPage: number;
  /** The same with PSS (each shared page split between the processes that map it): the memory the machine spends. */
  peakPssMbPerConcurrentPage: number;
}

/** The memory window: long enough for every page slot to cycle several times (a page takes ~0.4 s). */
const MEMORY_WINDOW_SECONDS = 4;
/** Service and fresh-context windows taken in turn (issue 41 asks for the median of at least three pairs). */
const PAIRED_ROUNDS = 3;

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
  const body = JSON.stringify({ url: pageUrl, browser: true, browser_type: kind });

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
    args: MACHINE_ARGS,
  });
  // The service and the fresh-context loop take turns, PAIRED_ROUNDS times: on a machine whose
  // speed drifts over a minute, each round's ratio compares windows seconds apart, and the median
  // of the rounds is the figure. The windows run unsampled: reading every Chromium process's
  // smaps_rollup blocks this event loop, which the service shares, and takes kernel time the
  // browsers compete for (measured: 6 % of a service window's main-thread time, 6.5 ms per page).
  const rounds: Array<{ service: LoadResult; servicePagesPerSecond: number; isolatedPagesPerSecond: number }> = [];
  for (let round = 0; round < PAIRED_ROUNDS; round++) {
    const service = await runLoad(`${serviceUrl}/v1/sync/scrape`, { authorization: `Bearer ${token}` }, concurrency, seconds, body);
    // Pages rendered: an answer other than 2xx (a refusal past the client's share) is not a page.
    const servicePagesPerSecond = Math.round(((service.requests - service.non2xx) / service.seconds) * 10) / 10;
    rounds.push({ service, servicePagesPerSecond, isolatedPagesPerSecond: await bareLoop(browser, pageUrl, concurrency, seconds, true) });
  }
  const bare = await bareLoop(browser, pageUrl, concurrency, seconds, false);
  await browser.close();

  // Memory under the same load, in a window of its own: sampled from /proc every 500 ms, one read per
  // process, over what the tree holds just before (measured here, not before the rounds: by now the
  // pool may have reclaimed an idle browser of the other kind, which would count as a negative page).
  await new Promise((resolve) => setTimeout(resolve, 500));
  const { rssMb: idle, pssMb: idlePss } = memoryOfTreeMb(process.pid);
  let peak = idle;
  let peakPss = idlePss;
  const sampler = setInterval(() => {
    const now = memoryOfTreeMb(process.pid);
    peak = Math.max(peak, now.rssMb);
    peakPss = Math.max(peakPss, now.pssMb);
  }, 500);
  await runLoad(`${serviceUrl}/v1/sync/scrape`, { authorization: `Bearer ${token}` }, concurrency, MEMORY_WINDOW_SECONDS, body);
  clearInterval(sampler);

  const pairedIsolatedRatios = rounds.map((r) => Math.round((r.servicePagesPerSecond / r.isolatedPagesPerSecond) * 1000) / 1000);
  const servicePagesPerSecond = median(rounds.map((r) => r.servicePagesPerSecond));
  const bareStealthIsolated = kind === 'heavy' ? await bareStealthLoop(executablePath, pageUrl, concurrency, seconds) : null;
  const bareStealthDesktop =
    kind === 'heavy' ? await bareStealthLoop(executablePath, pageUrl, concurrency, seconds, { width: 1920, height: 1080 }) : null;
  const bareStealthDesktopNoWindowUi =
    kind === 'heavy'
      ? await bareStealthLoop(executablePath, pageUrl, concurrency, seconds, { width: 1920, height: 1080 }, [
          `--disable-features=${WINDOW_UI_FEATURES_OFF.join(',')}`,
        ])
      : null;
  return {
    kind,
    servicePagesPerSecond,
    barePagesPerSecond: bare,
    bareIsolatedPagesPerSecond: median(rounds.map((r) => r.isolatedPagesPerSecond)),
    pairedIsolatedRatios,
    medianIsolatedRatio: median(pairedIsolatedRatios),
    bareStealthIsolatedPagesPerSecond: bareStealthIsolated,
    bareStealthDesktopPagesPerSecond: bareStealthDesktop,
    bareStealthDesktopNoWindowUiPagesPerSecond: bareStealthDesktopNoWindowUi,
    serviceP50Ms: median(rounds.map((r) => r.service.p50Ms)),
    non2xx: rounds.reduce((sum, r) => sum + r.service.non2xx, 0),
    peakMbPerConcurrentPage: Math.round(((peak - idle) / concurrency) * 10) / 10,
    peakPssMbPerConcurrentPage: Math.round(((peakPss - idlePss) / concurrency) * 10) / 10,
  };
}

/** The isolated bare loop on puppeteer-extra + stealth (every evasion on, as its README sets it up), same binary and flags. */
export async function bareStealthLoop(
  executablePath: string,
  url: string,
  concurrency: number,
  seconds: number,
  viewport: { width: number; height: number } | null = null,
  extraArgs: string[] = [],
): Promise<number> {
  const { addExtra } = await import('puppeteer-extra');
  const { default: StealthPlugin } = await import('puppeteer-extra-plugin-stealth');
  const extra = addExtra(puppeteer as unknown as Parameters<typeof addExtra>[0]);
  extra.use(StealthPlugin());
  const browser = (await extra.launch({
    executablePath,
    headless: true,
    pipe: true,
    args: [...MACHINE_ARGS, ...extraArgs],
    ...(viewport ? { defaultViewport: viewport } : {}),
  })) as unknown as Browser;
  try {
    return await bareLoop(browser, url, concurrency, seconds, true);
  } finally {
    await browser.close();
  }
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
