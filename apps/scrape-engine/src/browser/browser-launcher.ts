import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Logger } from '@nestjs/common';
import type { Browser, LaunchOptions } from 'rebrowser-puppeteer-core';
import { firstLine } from './browser-failures';
import type { ChromiumBinaries } from './chromium-locator';
import { type BrowserClientHints, DESKTOP_SCREEN, type UserAgentBrand } from './fingerprint-profile';

export type BrowserKind = 'heavy' | 'light';

export interface LaunchedBrowser {
  kind: BrowserKind;
  browser: Browser;
  pid: number | null;
  /** "156.0.8078.79": the fingerprint's user agent claims exactly this version. */
  version: string;
  /**
   * The client hints this browser states of itself (`navigator.userAgentData`), read from heavy at
   * launch: a fingerprint states exactly these, since a service worker, which no override reaches,
   * states them too.
   */
  clientHints: BrowserClientHints;
  /**
   * Settles once, when the browser is gone: its process exited or its connection closed, whichever
   * comes first. Watched from the moment the launch returns, so an exit between the launch and the
   * caller's first look at the browser is not missed.
   */
  ended: Promise<BrowserEnd>;
}

/** How a browser went: the signal that ended its process, or its exit code (null while unknown). */
export interface BrowserEnd {
  signal: string | null;
  code: number | null;
}

/** Chromium was not found, or would not start. */
export class BrowserUnavailableError extends Error {}

/**
 * A Chromium process was started but did not become a usable browser (it exited, was killed, or
 * failed its first call): a browser that ended while starting.
 */
export class BrowserStartError extends BrowserUnavailableError {}

/** What Chromium needs to run at all here (no sandbox in containers, nothing fetched from the network at start). */
export const MACHINE_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

/**
 * Browser-UI pages the full Chromium builds for every new window, which a headless scraper never
 * shows: since Chromium ~150 each window preloads the omnibox popup as two WebUI pages
 * (`chrome://omnibox-popup.top-chrome/`, `…/omnibox_popup_aim.html`) in renderers of their own.
 * Every browser context's first page is a new window, so every heavy request paid for them in CPU
 * (docs/benchmarks.md, "Figures behind the code"). Pages cannot see browser UI, so turning it
 * off changes nothing a site can detect. A test fails if a Chromium upgrade brings another
 * `browser_ui` target per window (browser-launcher.spec.ts).
 */
export const WINDOW_UI_FEATURES_OFF = ['WebUIOmniboxPopup', 'WebUIOmniboxAimPopup', 'WebUIOmniboxFullPopup'];

// Flags every browser gets. The network ones matter for SSRF: each context has its own proxy (the
// egress filter); the browser-wide proxy is a closed port, so nothing outside a context goes out;
// `<-loopback>` stops Chromium's implicit proxy bypass for localhost and 127.0.0.1; WebRTC may
// not send UDP around the proxy; QUIC (UDP) is off; no DNS prefetching outside the proxy.
const COMMON_ARGS = [
  ...MACHINE_ARGS,
  '--disable-quic',
  '--dns-prefetch-disable',
  '--disable-dev-shm-usage',
  '--proxy-server=http://127.0.0.1:9',
  '--proxy-bypass-list=<-loopback>',
  '--force-webrtc-ip-handling-policy=disable_non_proxied_udp',
  '--webrtc-ip-handling-policy=disable_non_proxied_udp',
  `--disable-features=${['Translate', 'MediaRouter', 'OptimizationHints', 'InterestFeedContentSuggestions', 'CalculateNativeWinOcclusion', ...WINDOW_UI_FEATURES_OFF].join(',')}`,
  '--disable-breakpad',
  '--mute-audio',
  '--enable-unsafe-swiftshader',
];

/**
 * Heavy's GPU (decision 0043), in place of `--disable-gpu`: WebGL on the machine's own GL driver
 * through ANGLE's EGL backend (a GPU where there is one, else Mesa's llvmpipe, as on any Linux
 * desktop without a GPU driver), falling back to SwiftShader only where neither starts. Whatever
 * it is, every realm reads the same driver and draws with it. The page itself is composited in
 * software, as Chrome does on a software GL driver (and no page can tell): compositing through
 * llvmpipe cost a quarter of heavy's pages per second.
 */
export const HEAVY_GPU_ARGS = ['--enable-gpu', '--use-angle=gl-egl', '--ignore-gpu-blocklist', '--disable-gpu-compositing'];

// The stealth plugin's evasions heavy keeps: only those that change launch flags and run nothing in
// a page (decisions 0021, 0043). `defaultArgs` keeps the extension and default-app flags a
// person's browser has. `navigator.webdriver` is the AutomationControlled flag in heavy's own
// arguments (the evasion would add a script to every page besides); `window.outerdimensions` is
// a script, and a headful window has its outer sizes. The rest proxy native functions (the proxies
// show in stack traces and are what suites name puppeteer-extra by), patch what Chromium already
// has natively (window.chrome, plugins, permissions, codecs, vendor), or are done per page from the
// request's fingerprint profile (user agent, languages) with CDP overrides.
const KEPT_EVASIONS = new Set(['defaultArgs']);

/**
 * Starts Chromium (adapter around puppeteer). Both kinds run on rebrowser-puppeteer-core, whose
 * evaluations neither enable Runtime nor name puppeteer or this service's files (decision 0021).
 * `heavy`: puppeteer-extra with the stealth plugin's lie-free evasions on the full Chromium, headful
 * on the headless Ozone platform (no display needed). `light`: plain puppeteer on chrome-headless-shell when installed (starts and
 * renders faster), else on Chromium. Browsers talk over a pipe, so one whose parent dies exits with
 * it instead of lingering.
 */
export class BrowserLauncher {
  private readonly logger = new Logger('BrowserLauncher');
  private heavyPuppeteer: { launch(options: LaunchOptions): Promise<Browser> } | null = null;

  constructor(private readonly binaries: ChromiumBinaries) {}

  async launch(kind: BrowserKind): Promise<LaunchedBrowser> {
    const executablePath = kind === 'light' ? (this.binaries.headlessShell ?? this.binaries.chromium) : this.binaries.chromium;
    if (!executablePath) {
      throw new BrowserUnavailableError(
        'No Chromium was found: install it (Debian: apt-get install chromium chromium-headless-shell) or set CHROME_PATH.',
      );
    }
    const shell = kind === 'light' && executablePath === this.binaries.headlessShell;
    const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), `scrape-browser-${kind}-`));
    const options: LaunchOptions = {
      executablePath,
      headless: kind === 'heavy' ? false : shell ? 'shell' : true,
      pipe: true,
      userDataDir,
      // A copy per launch: puppeteer takes `--disable-features` out of the array it is given (to
      // merge it with its own), so the shared list lost it after the first launch and every later
      // browser ran without it.
      args: kind === 'heavy' ? this.heavyArgs() : [...COMMON_ARGS],
      handleSIGINT: false,
      handleSIGTERM: false,
      handleSIGHUP: false,
      protocolTimeout: 60_000,
      defaultViewport: null,
      timeout: 30_000,
    };
    let browser: Browser;
    try {
      browser = await (kind === 'heavy' ? this.heavy() : await this.light()).launch(options);
    } catch (error) {
      fs.rmSync(userDataDir, { recursive: true, force: true });
      throw new BrowserStartError(`${kind} browser (${executablePath}) did not start: ${firstLine(error)}`);
    }
    const cleanUp = () => fs.rm(userDataDir, { recursive: true, force: true }, () => undefined);
    const child = browser.process();
    child?.once('exit', cleanUp);
    const ended = browserEnded(browser);
    // A killed or crashed Chromium's pipes can report an error (read ECONNRESET). Unheard, that
    // error is an uncaught exception, and an uncaught exception ends the whole scrape-engine:
    // every stream keeps a listener for life. Heard is not enough, though: until the stream ends,
    // @puppeteer/browsers reads stdout and stderr through readline, whose listener re-emits the
    // error on its interface, where nobody listens, so it is thrown from inside the stream's emit.
    // Every listener already on a pipe therefore runs guarded.
    const pid = child?.pid ?? '?';
    const heard = (error: unknown) =>
      this.logger.debug(`${kind} browser ${pid}: pipe error (${error instanceof Error ? error.message : String(error)})`);
    for (const stream of child?.stdio ?? []) {
      if (!stream) continue;
      for (const listener of stream.rawListeners('error') as Array<(error: Error) => void>) {
        stream.removeListener('error', listener);
        stream.on('error', (error: Error) => {
          try {
            listener.call(stream, error);
          } catch (thrown) {
            heard(thrown);
          }
        });
      }
      stream.on('error', heard);
    }
    let version: string;
    try {
      version = (await browser.version()).replace(/^[^/]*\//, '');
    } catch (error) {
      // Killed or broken before its first answer: it never served, so it is a failed start (and
      // a process that still runs must not be left behind).
      if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await ended;
      throw new BrowserStartError(`${kind} browser (${executablePath}) did not start: ${firstLine(error)}`);
    }
    const clientHints = kind === 'heavy' ? await clientHintsOf(browser, version) : clientHintsOfVersion(version);
    return { kind, browser, pid: child?.pid ?? null, version, clientHints, ended };
  }

  /**
   * Heavy's flags: the GPU flags above, and the headless Ozone platform under a headful browser
   * (launched without `--headless`), so nothing states "Headless": not the user agent of any realm,
   * service workers included, nor the client-hint brands, nor hidden scrollbars (decision 0043).
   * Windows open at the desktop screen's size, so the usual page needs no resize.
   */
  private heavyArgs(): string[] {
    return [
      ...COMMON_ARGS.filter((arg) => arg !== '--disable-gpu'),
      ...HEAVY_GPU_ARGS,
      '--ozone-platform=headless',
      `--window-size=${DESKTOP_SCREEN.width},${DESKTOP_SCREEN.height}`,
      '--disable-blink-features=AutomationControlled',
    ];
  }

  private heavy() {
    if (!this.heavyPuppeteer) {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const { addExtra } = require('puppeteer-extra') as typeof import('puppeteer-extra');
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const StealthPlugin = require('puppeteer-extra-plugin-stealth') as typeof import('puppeteer-extra-plugin-stealth');
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const extra = addExtra(require('rebrowser-puppeteer-core'));
      const stealth = StealthPlugin();
      for (const evasion of [...stealth.enabledEvasions]) if (!KEPT_EVASIONS.has(evasion)) stealth.enabledEvasions.delete(evasion);
      extra.use(stealth);
      this.heavyPuppeteer = extra as unknown as { launch(options: LaunchOptions): Promise<Browser> };
    }
    return this.heavyPuppeteer;
  }

  private async light() {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return require('rebrowser-puppeteer-core') as typeof import('rebrowser-puppeteer-core');
  }
}

/**
 * Asks Chromium to close itself (CDP `Browser.close` over a session on the browser target) and
 * returns once it was asked; it never kills. puppeteer's own `browser.close()` is not used because
 * it SIGKILLs the process group itself when the reply to `Browser.close` does not arrive — which
 * happens whenever Chromium closes its pipe on the way out before its exit is recorded (seen on a
 * loaded CI machine) — and a SIGKILL its owner did not send is how a crash is told apart from a
 * close (BrowserPool). Whoever asks waits for the end and kills on its own clock.
 */
export async function askBrowserToClose(browser: Browser): Promise<void> {
  try {
    const session = await browser.target().createCDPSession();
    await session.send('Browser.close');
  } catch {
    // The connection closed first (it is on its way out), or it no longer answers: the caller's
    // wait for its end, and its kill after that, decide.
  }
}

/**
 * The client hints the browser states in a secure context of its own (chrome://version), read in
 * the page it starts with. Where they cannot be read, the version alone, said in the log: the
 * stealth check's service-worker rows then show the difference.
 */
async function clientHintsOf(browser: Browser, version: string): Promise<BrowserClientHints> {
  try {
    const page = (await browser.pages())[0] ?? (await browser.newPage());
    await page.goto('chrome://version', { timeout: 10_000 });
    const read = await page.evaluate(async () => {
      type Hints = { brands: UserAgentBrand[]; fullVersionList?: UserAgentBrand[]; platformVersion?: string };
      const data = (navigator as unknown as { userAgentData?: Hints & { getHighEntropyValues(hints: string[]): Promise<Hints> } })
        .userAgentData;
      if (!data) return null;
      const high = await data.getHighEntropyValues(['fullVersionList', 'platformVersion']);
      const copy = (list: UserAgentBrand[] | undefined) => (list ?? []).map(({ brand, version }) => ({ brand, version }));
      return { brands: copy(data.brands), fullVersionList: copy(high.fullVersionList), platformVersion: high.platformVersion ?? '' };
    });
    await page.goto('about:blank').catch(() => undefined);
    if (read && read.brands.length > 0) return read;
  } catch (error) {
    new Logger('BrowserLauncher').warn(
      `the browser's client hints could not be read (${firstLine(error)}); stating Chromium ${version} alone`,
    );
  }
  return clientHintsOfVersion(version);
}

/** Chromium of this version and nothing else: what a browser whose own hints were not read states. */
function clientHintsOfVersion(version: string): BrowserClientHints {
  return {
    brands: [{ brand: 'Chromium', version: version.split('.')[0] }],
    fullVersionList: [{ brand: 'Chromium', version }],
    platformVersion: '',
  };
}

/**
 * The first of the browser's process exit and its connection's close, as one promise. A process
 * that had already gone when this is called (or a connection already closed) settles it at once.
 */
function browserEnded(browser: Browser): Promise<BrowserEnd> {
  const child = browser.process();
  return new Promise<BrowserEnd>((resolve) => {
    const settle = () => resolve({ signal: child?.signalCode ?? null, code: child?.exitCode ?? null });
    if (child) {
      if (child.exitCode !== null || child.signalCode !== null) return settle();
      child.once('exit', settle);
    }
    if (!browser.connected) return settle();
    browser.once('disconnected', () => {
      // The connection closes a moment before the exit is recorded: wait briefly for the process's
      // own word, so the reason says "signal SIGKILL" rather than "disconnected" when it can.
      if (!child || child.exitCode !== null || child.signalCode !== null) return settle();
      setTimeout(settle, 1000).unref();
    });
  });
}
