import type { TargetGuard } from '@lib/target-guard';
import { Logger } from '@nestjs/common';
import type { Browser, BrowserContext, CDPSession, Page } from 'rebrowser-puppeteer-core';
import { firstLine, withinDeadline } from './browser-failures';
import type { BrowserKind } from './browser-launcher';
import { EgressSession } from './egress-filter';

/** A fresh, never-used context with its own egress filter and one blank page. */
export interface PreparedContext {
  egress: EgressSession;
  context: BrowserContext;
  page: Page;
  /** A protocol session of the page's own (overrides, budget, capture), made with it. */
  cdp: CDPSession;
  /** False once the page's renderer has crashed: a spare like that would hang every call. */
  alive(): boolean;
}

/** A context and page made for one request, with its egress filter routed to `upstreamProxyUrl`. */
export async function prepareContext(browser: Browser, guard: TargetGuard, upstreamProxyUrl: string | null): Promise<PreparedContext> {
  const egress = await EgressSession.open(guard, upstreamProxyUrl);
  try {
    const context = await browser.createBrowserContext({ proxyServer: egress.proxyServer, proxyBypassList: ['<-loopback>'] });
    const page = await context.newPage();
    const cdp = await page.createCDPSession();
    let crashed = false;
    page.once('error', () => (crashed = true));
    return { egress, context, page, cdp, alive: () => !crashed && !page.isClosed() && browser.connected };
  } catch (error) {
    await egress.close().catch(() => undefined);
    throw error;
  }
}

/**
 * One spare context per browser of the kinds where making one is slow. In the full Chromium
 * (heavy) a new context and its first page cost ~170 ms of browser work — a new renderer and
 * storage partition, plus the stealth plugin's page setup — so the next request's context is made
 * while the current one runs. A spare has never loaded anything, so it is exactly as isolated as a
 * context made on demand; it is routed to the request's proxy when taken. Spares of a browser that
 * goes away are discarded with it.
 */
export class ContextReserve {
  private readonly logger = new Logger('ContextReserve');
  private readonly spares = new Map<Browser, Promise<PreparedContext | null>>();
  private readonly watched = new WeakSet<Browser>();
  private closed = false;

  constructor(
    private readonly guard: TargetGuard,
    private readonly kinds: ReadonlySet<BrowserKind>,
  ) {}

  /** The browser's spare when there is a good one, else a context made now; a new spare follows. */
  async take(browser: Browser, kind: BrowserKind, upstreamProxyUrl: string | null): Promise<PreparedContext & { spare: boolean }> {
    const spare = this.spares.get(browser);
    this.spares.delete(browser);
    const prepared = spare ? await spare : null;
    if (this.kinds.has(kind)) this.refill(browser);
    if (prepared && (await answers(prepared))) {
      prepared.egress.route(upstreamProxyUrl);
      prepared.egress.resetCounters();
      return { ...prepared, spare: true };
    }
    // Not awaited: closing a context whose renderer died can itself take a while.
    if (prepared) void discard(prepared);
    return { ...(await prepareContext(browser, this.guard, upstreamProxyUrl)), spare: false };
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.drain();
  }

  /** Discards the spares held now (the next request makes a new one). */
  async drain(): Promise<void> {
    const pending = [...this.spares.values()];
    this.spares.clear();
    await Promise.all(
      pending.map(async (spare) => {
        const prepared = await spare;
        if (prepared) await discard(prepared);
      }),
    );
  }

  private refill(browser: Browser): void {
    if (this.closed || !browser.connected || this.spares.has(browser)) return;
    const making = prepareContext(browser, this.guard, null).catch((error: unknown) => {
      if (browser.connected) this.logger.warn(`could not prepare a spare context: ${firstLine(error)}`);
      return null;
    });
    this.spares.set(browser, making);
    if (this.watched.has(browser)) return;
    this.watched.add(browser);
    browser.once('disconnected', () => {
      const left = this.spares.get(browser);
      this.spares.delete(browser);
      void left?.then((prepared) => prepared && discard(prepared));
    });
  }
}

// A renderer killed while its page sat idle is reported (page 'error') only some time later, and
// every call on that page hangs until the protocol timeout: ask it once, briefly, before use.
const SPARE_PROBE_MS = 1000;

// Asked on the page's own session, not through page.evaluate: puppeteer would first find the page's
// execution context (without Runtime.enable that is a round of its own, slow under load), and the
// renderer's answer is all the probe needs.
async function answers(prepared: PreparedContext): Promise<boolean> {
  if (!prepared.alive()) return false;
  try {
    await withinDeadline(
      prepared.cdp.send('Runtime.evaluate', { expression: '1', returnByValue: true }),
      SPARE_PROBE_MS,
      () => new Error('the spare page did not answer'),
    );
    return true;
  } catch {
    return false;
  }
}

async function discard(prepared: PreparedContext): Promise<void> {
  await prepared.context.close().catch(() => undefined);
  await prepared.egress.close().catch(() => undefined);
}
