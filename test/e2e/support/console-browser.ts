import axe from 'axe-core';
import fs from 'node:fs';
import path from 'node:path';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { locateChromium } from '../../../apps/scrape-engine/src/browser/chromium-locator';

/** Where the console tests leave their screenshots (docs/console.md shows three of them, copied to docs/console/). */
export const SCREENSHOT_DIR = path.resolve(__dirname, '../../../test-results/console');

/** What a page did that the console promises never happens: errors, failed requests, requests to other hosts. */
export interface PageIncidents {
  consoleErrors: string[];
  failedRequests: string[];
  /** Answers ≥ 400, as "STATUS METHOD path". The tests that provoke one take it out with `expectAnswered`. */
  errorAnswers: string[];
  foreignRequests: string[];
}

/**
 * Headless Chromium (the system's, the flags the machine needs) driving the console, with every
 * console error, failed request, 4xx/5xx answer and request to a host other than the gateway
 * recorded for the test to assert on.
 */
export class ConsoleBrowser {
  readonly incidents: PageIncidents = { foreignRequests: [], failedRequests: [], errorAnswers: [], consoleErrors: [] };

  private constructor(
    private readonly browser: Browser,
    readonly page: Page,
    private readonly origin: string,
  ) {}

  static async open(gatewayUrl: string, viewport = { width: 1280, height: 900 }): Promise<ConsoleBrowser> {
    const binaries = locateChromium({ chromePath: process.env.CHROME_PATH ?? null, headlessShellPath: null });
    if (!binaries.chromium) throw new Error('No Chromium: apt-get install chromium');
    const browser = await puppeteer.launch({
      executablePath: binaries.chromium,
      headless: true,
      pipe: true,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
        '--disable-dev-shm-usage',
      ],
      defaultViewport: viewport,
      handleSIGINT: false,
      handleSIGTERM: false,
      handleSIGHUP: false,
    });
    const page = await browser.newPage();
    const driver = new ConsoleBrowser(browser, page, new URL(gatewayUrl).origin);
    driver.watch();
    return driver;
  }

  private watch(): void {
    const { page, incidents, origin } = this;
    page.on('console', (message) => {
      if (message.type() === 'error') incidents.consoleErrors.push(`${message.text()} @ ${message.location()?.url ?? ''}`);
    });
    page.on('pageerror', (error) => incidents.consoleErrors.push(`uncaught: ${(error as Error).message}`));
    page.on('requestfailed', (request) =>
      incidents.failedRequests.push(`${request.method()} ${request.url()}: ${request.failure()?.errorText}`),
    );
    page.on('request', (request) => {
      const url = request.url();
      if (!url.startsWith('data:') && !url.startsWith('about:') && !url.startsWith('blob:') && new URL(url).origin !== origin) {
        incidents.foreignRequests.push(url);
      }
    });
    page.on('response', (response) => {
      if (response.status() >= 400) {
        const url = new URL(response.url());
        incidents.errorAnswers.push(`${response.status()} ${response.request().method()} ${url.pathname}`);
      }
    });
  }

  clearIncidents(): void {
    for (const list of Object.values(this.incidents)) list.length = 0;
  }

  /**
   * Takes out the answers a test provoked on purpose (a 422 to show field messages, say) and the
   * console line Chromium logs for each; anything else stays an incident.
   */
  expectAnswered(status: number, method: string, pathname: string): void {
    const wanted = `${status} ${method} ${pathname}`;
    const index = this.incidents.errorAnswers.indexOf(wanted);
    if (index < 0) throw new Error(`expected an answer ${wanted}; saw ${JSON.stringify(this.incidents.errorAnswers)}`);
    this.incidents.errorAnswers.splice(index, 1);
    const logged = this.incidents.consoleErrors.findIndex((line) => line.includes(`status of ${status}`) && line.includes(pathname));
    if (logged >= 0) this.incidents.consoleErrors.splice(logged, 1);
  }

  async goto(hashRoute: string): Promise<void> {
    const url = `${this.origin}/console/#/${hashRoute}`;
    if (this.page.url().startsWith(`${this.origin}/console/`)) {
      await this.page.evaluate((hash) => {
        window.location.hash = hash;
      }, `#/${hashRoute}`);
    } else {
      await this.page.goto(url, { waitUntil: 'networkidle0' });
    }
  }

  async signIn(token: string): Promise<void> {
    await this.page.goto(`${this.origin}/console/`, { waitUntil: 'networkidle0' });
    await this.page.waitForSelector('#token');
    await this.page.type('#token', token);
    await this.page.click('button[type=submit]');
    await this.page.waitForSelector('[data-testid=signed-in-as]');
  }

  /** Waits until the page's text contains `text` (within a selector). */
  async waitForText(text: string, selector = 'body', timeout = 60_000): Promise<void> {
    await this.page.waitForFunction(
      (sel, wanted) => Array.from(document.querySelectorAll(sel)).some((el) => (el.textContent ?? '').includes(wanted)),
      { timeout, polling: 100 },
      selector,
      text,
    );
  }

  /** Clicks the first button (or link) whose text is `label`. */
  async clickText(label: string, selector = 'button'): Promise<void> {
    const handle = await this.page.waitForFunction(
      (sel, wanted) =>
        Array.from(document.querySelectorAll<HTMLElement>(sel)).find(
          (el) => el.textContent?.trim() === wanted && !(el as HTMLButtonElement).disabled,
        ) ?? null,
      { timeout: 30_000, polling: 100 },
      selector,
      label,
    );
    // A DOM click on the element found: a coordinate click can land elsewhere when a live page
    // (a run being polled) moves its layout between finding the button and pressing it.
    await (handle as unknown as { evaluate(fn: (el: HTMLElement) => void): Promise<void> }).evaluate((el) => el.click());
  }

  /** Presses the button a selector names, once it is there and enabled (a DOM click, as clickText). */
  async press(selector: string, timeout = 60_000): Promise<void> {
    const handle = await this.page.waitForSelector(`${selector}:not([disabled])`, { timeout });
    await handle!.evaluate((el) => (el as HTMLElement).click());
  }

  /** axe-core over the current page (WCAG 2 A and AA): the violations of serious or critical impact. */
  async seriousAccessibilityViolations(): Promise<Array<{ id: string; impact: string; nodes: string[] }>> {
    await this.page.evaluate(axe.source);
    const results = await this.page.evaluate(async () => {
      const run = (
        window as unknown as {
          axe: {
            run(
              context: Document,
              options: object,
            ): Promise<{ violations: Array<{ id: string; impact: string; nodes: Array<{ target: string[] }> }> }>;
          };
        }
      ).axe;
      return run.run(document, {
        runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] },
        resultTypes: ['violations'],
      });
    });
    return results.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.slice(0, 5).map((n) => n.target.join(' ')) }));
  }

  async screenshot(name: string): Promise<string> {
    fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
    const file = path.join(SCREENSHOT_DIR, `${name}.png`);
    await this.page.screenshot({ path: file as `${string}.png`, fullPage: true });
    return file;
  }

  async close(): Promise<void> {
    await this.browser.close().catch(() => undefined);
  }
}
