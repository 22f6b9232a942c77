import type { CDPSession, Page } from 'rebrowser-puppeteer-core';
import { BrowserFailure } from './browser-failures';

export interface PageBudgetLimits {
  /**
   * Response bodies of the page together, decoded bytes: documents, frames, scripts, styles, XHR
   * and fetch. Images, media and fonts count against MEDIA_BUDGET_FACTOR times this (Chromium keeps
   * their decoded pixels in a cache it can drop, not in the DOM).
   */
  maxBytes: number;
  /** The rendered document's serialised size (characters), before it is read into this process. */
  maxHtmlChars: number;
}

interface DataReceived {
  requestId: string;
  dataLength: number;
}

interface ResponseReceived {
  requestId: string;
  type?: string;
}

export const MEDIA_BUDGET_FACTOR = 5;
const MEDIA_TYPES = new Set(['Image', 'Media', 'Font']);

/**
 * A page's memory, bounded by what it brings in and what it builds. Chromium decodes what it
 * receives (a 1 MB gzip can be 1 GB of HTML) and keeps the DOM it builds from it in the renderer;
 * the engine then reads the DOM as one string and converts it. Counting the *decoded* bytes of
 * every response as they arrive (CDP Network.dataReceived) and measuring the DOM's size inside
 * the renderer before reading it stops a page before either side holds it: past the budget the
 * page is cut off the network at once (offline emulation: what is in flight fails, nothing more
 * arrives) and the scrape ends as `body_too_large`, never charged, like simple mode.
 */
export class PageBudget {
  private received = 0;
  private receivedMedia = 0;
  /** Requests of the page whose response is an image, media or font. */
  private readonly media = new Set<string>();
  private failure: BrowserFailure | null = null;
  private fail!: (failure: BrowserFailure) => void;
  /** Rejects with the failure when the page goes past its budget; never resolves. */
  readonly exceeded: Promise<never>;

  private constructor(
    private readonly cdp: CDPSession,
    private readonly limits: PageBudgetLimits,
  ) {
    this.exceeded = new Promise<never>((_, reject) => (this.fail = reject));
    this.exceeded.catch(() => undefined);
  }

  /** Starts counting on `cdp` (before the navigation: the first byte counts). */
  static async watch(cdp: CDPSession, limits: PageBudgetLimits): Promise<PageBudget> {
    const budget = new PageBudget(cdp, limits);
    cdp.on('Network.responseReceived', (event: ResponseReceived) => {
      if (event.type && MEDIA_TYPES.has(event.type)) budget.media.add(event.requestId);
    });
    cdp.on('Network.dataReceived', (event: DataReceived) => budget.count(event.requestId, event.dataLength));
    // No payloads kept for this session (the network recorder asks for its own when it records).
    await cdp.send('Network.enable', { maxTotalBufferSize: 0, maxResourceBufferSize: 0 });
    return budget;
  }

  /** Throws the budget's failure if the page went past it (a page that loaded anyway is not read). */
  assertWithin(): void {
    if (this.failure) throw this.failure;
  }

  /** Measures the DOM in the renderer (no copy crosses to this process) before it is read. */
  async assertHtmlWithin(page: Page): Promise<void> {
    this.assertWithin();
    const chars = await page.evaluate(() => document.documentElement?.outerHTML.length ?? 0);
    if (chars > this.limits.maxHtmlChars)
      this.trip(
        new BrowserFailure(
          'body_too_large',
          `The rendered page is ${chars} characters, over the ${this.limits.maxHtmlChars}-character budget of a browser page; nothing was read or charged.`,
        ),
      );
    this.assertWithin();
  }

  /** The page as read (its shadow trees and same-origin frames written in) within the same budget as its document. */
  assertReadWithin(chars: number): void {
    if (chars > this.limits.maxHtmlChars)
      this.trip(
        new BrowserFailure(
          'body_too_large',
          `The rendered page with its shadow trees and frames is ${chars} characters, over the ${this.limits.maxHtmlChars}-character budget of a browser page; nothing was read or charged.`,
        ),
      );
    this.assertWithin();
  }

  private count(requestId: string, bytes: number): void {
    if (this.failure) return;
    if (this.media.has(requestId)) {
      this.receivedMedia += bytes;
      const mediaBudget = MEDIA_BUDGET_FACTOR * this.limits.maxBytes;
      if (this.receivedMedia > mediaBudget)
        this.trip(
          new BrowserFailure(
            'body_too_large',
            `The page's images, media and fonts passed ${mediaBudget} bytes (decoded) while loading, the budget of a browser page; it was stopped and not charged.`,
          ),
        );
      return;
    }
    this.received += bytes;
    if (this.received > this.limits.maxBytes)
      this.trip(
        new BrowserFailure(
          'body_too_large',
          `The page's documents, scripts and data passed ${this.limits.maxBytes} bytes (decoded) while loading, the budget of a browser page; it was stopped and not charged.`,
        ),
      );
  }

  private trip(failure: BrowserFailure): void {
    if (this.failure) return;
    this.failure = failure;
    // Cut the page off at once; these may fail on a page already closing, which is as good.
    void this.cdp
      .send('Network.emulateNetworkConditions', { offline: true, latency: 0, downloadThroughput: -1, uploadThroughput: -1 })
      .catch(() => undefined);
    void this.cdp.send('Page.stopLoading').catch(() => undefined);
    this.fail(failure);
  }
}
