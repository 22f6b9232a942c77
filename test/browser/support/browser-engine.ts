import { ScrapeRequest } from '@lib/contracts';
import { chromiumProcessesBelow } from '../../support/chromium-processes';
import { TargetAllowlist, TargetGuard } from '@lib/target-guard';
import { plainToInstance } from 'class-transformer';
import { BrowserLauncher } from '../../../apps/scrape-engine/src/browser/browser-launcher';
import { type BrowserExit, BrowserPool, type BrowserPoolSettings } from '../../../apps/scrape-engine/src/browser/browser-pool';
import { BrowserScrapeExecutor } from '../../../apps/scrape-engine/src/browser/browser-scrape.executor';
import { ContextReserve } from '../../../apps/scrape-engine/src/browser/context-reserve';
import { locateChromium } from '../../../apps/scrape-engine/src/browser/chromium-locator';
import { ContentValidator } from '../../../apps/scrape-engine/src/content-validation/content-validator';
import { SelectorExtractor } from '../../../apps/scrape-engine/src/extraction/selector-extractor';
import { MainContentReader } from '../../../apps/scrape-engine/src/formats/main-content-reader';
import { MarkdownConverter } from '../../../apps/scrape-engine/src/formats/markdown-converter';
import { PageFormatter } from '../../../apps/scrape-engine/src/formats/page-formatter';
import { GuidanceAdvisor } from '../../../apps/scrape-engine/src/guidance/guidance-advisor';
import { ProxyRotation } from '../../../apps/scrape-engine/src/proxy-rotation/proxy-rotation';

/** The browser engine as scrape-engine wires it, without the transport: for pool-level tests. */
export async function browserEngine(options: {
  allow: string[];
  pool: BrowserPoolSettings;
  navigationMs: number;
  proxyPool?: Record<string, string[]>;
  /** The page budget (default: scrape-engine's defaults). */
  pageMaxBytes?: number;
  pageMaxHtmlChars?: number;
}) {
  // What the pool told its observer (in scrape-engine: ops events and metrics).
  const told: BrowserExit[] = [];
  const pool = new BrowserPool(
    new BrowserLauncher(locateChromium({ chromePath: process.env.CHROME_PATH ?? null, headlessShellPath: null })),
    options.pool,
    { exited: (exit) => void told.push(exit) },
  );
  const guard = new TargetGuard(new TargetAllowlist(options.allow));
  const reserve = new ContextReserve(guard, new Set(['heavy'] as const));
  const executor = new BrowserScrapeExecutor(
    pool,
    reserve,
    guard,
    new ProxyRotation({ proxyPool: options.proxyPool ?? {} }),
    new ContentValidator(),
    new PageFormatter(new MarkdownConverter(await MainContentReader.load()), new SelectorExtractor()),
    new SelectorExtractor(),
    new GuidanceAdvisor(),
    {
      navigationMs: options.navigationMs,
      maxBytes: options.pageMaxBytes ?? 10 * 1024 * 1024,
      maxHtmlChars: options.pageMaxHtmlChars ?? 10 * 1024 * 1024,
    },
  );
  const scrape = (body: Record<string, unknown>) => executor.execute(plainToInstance(ScrapeRequest, { browser: true, ...body }));
  const close = async () => {
    await reserve.close();
    await pool.close();
  };
  return { pool, reserve, executor, scrape, close, told };
}

/** Chromium processes below this test process: all of them, and the browsers' main processes. */
export function chromiumProcesses(): { all: number[]; browsers: number[]; renderers: number[]; helpers: number[] } {
  const below = chromiumProcessesBelow();
  return {
    all: below.map((p) => p.pid),
    browsers: below.filter((p) => p.main).map((p) => p.pid),
    renderers: below.filter((p) => p.renderer).map((p) => p.pid),
    helpers: below.filter((p) => !p.main && !p.renderer).map((p) => p.pid),
  };
}

/** Polls until `probe` holds (processes take a moment to exit), or gives up after `ms`. */
export async function eventually(probe: () => boolean, ms = 10_000): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (probe()) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return probe();
}
