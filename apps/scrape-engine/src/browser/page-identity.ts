import type { Browser, BrowserContext, CDPSession, Page } from 'rebrowser-puppeteer-core';
import { DESKTOP_SCREEN, type FingerprintProfile } from './fingerprint-profile';

/**
 * Gives a page the profile's identity before anything loads, through Chromium's own overrides only
 * (user agent with client hints and navigator.platform, Accept-Language and navigator.languages,
 * locale, time zone, viewport, screen and touch): no script runs in the page, so no function a
 * page can inspect is changed (decision 0043). For `stealthy` pages the same user agent override
 * is given to every dedicated and shared worker of the page's context before its first line.
 */
export async function dressPage(page: Page, cdp: CDPSession, profile: FingerprintProfile, stealthy: boolean): Promise<void> {
  const { viewport, screen } = profile;
  const userAgent = {
    userAgent: profile.userAgent,
    acceptLanguage: profile.acceptLanguage,
    platform: profile.platform,
    userAgentMetadata: profile.userAgentMetadata,
  };
  const screenOrientation = { type: viewport.isMobile ? ('portraitPrimary' as const) : ('landscapePrimary' as const), angle: 0 };
  // A stealthy desktop page is a real window the size of the screen (heavy's windows open at the
  // desktop screen's size; another screen resizes it), whose page area is what the browser's own
  // frame leaves (outer larger than inner, as in every windowed browser); the rest emulate the
  // device outright.
  const windowed = stealthy && !viewport.isMobile;
  const metrics = windowed
    ? {
        width: 0,
        height: 0,
        deviceScaleFactor: 0,
        mobile: false,
        screenWidth: screen.width,
        screenHeight: screen.height,
        screenOrientation,
      }
    : {
        width: viewport.width,
        height: viewport.height,
        deviceScaleFactor: viewport.deviceScaleFactor,
        mobile: viewport.isMobile,
        screenWidth: screen.width,
        screenHeight: screen.height,
        screenOrientation,
      };
  await Promise.all([
    cdp.send('Emulation.setUserAgentOverride', userAgent),
    cdp.send('Emulation.setLocaleOverride', { locale: profile.locale }),
    cdp.send('Emulation.setTimezoneOverride', { timezoneId: profile.timezone }),
    windowed && (screen.width !== DESKTOP_SCREEN.width || screen.height !== DESKTOP_SCREEN.height)
      ? fitWindowToScreen(cdp, screen)
      : undefined,
    cdp.send('Emulation.setDeviceMetricsOverride', metrics),
    cdp.send('Emulation.setTouchEmulationEnabled', viewport.hasTouch ? { enabled: true, maxTouchPoints: 5 } : { enabled: false }),
  ]);
  if (!stealthy) return;
  WorkerDressing.of(page.browser()).dress(page.browserContext(), userAgent);
}

/** The page's window covers the screen, as a maximised window on a screen without a taskbar does. */
async function fitWindowToScreen(cdp: CDPSession, screen: FingerprintProfile['screen']): Promise<void> {
  const { windowId } = await cdp.send('Browser.getWindowForTarget');
  await cdp.send('Browser.setWindowBounds', {
    windowId,
    bounds: { left: 0, top: 0, width: screen.width, height: screen.height, windowState: 'normal' },
  });
}

/** Emulation.setUserAgentOverride's parameters: the page's user agent, client hints, platform and languages. */
interface WorkerIdentity {
  userAgent: string;
  acceptLanguage: string;
  platform: string;
  userAgentMetadata: FingerprintProfile['userAgentMetadata'];
}

// Puppeteer's own (marked internal) target bookkeeping: the browser's target manager announces each
// target it attached, and a target's session. The realm test and the stealth check fail if an
// upgrade takes them away.
interface BrowserInternals {
  _targetManager?: () => { on(event: 'targetAvailable', listener: (target: TargetInternals) => void): unknown };
}
interface TargetInternals {
  /** The protocol's TargetInfo: its `type` tells dedicated workers ('worker') apart, type() does not. */
  _getTargetInfo?: () => { type: string };
  browserContext(): BrowserContext;
  _session?: () => CDPSession | undefined;
}

const DRESSED_TARGETS = new Set(['worker', 'shared_worker']);

/**
 * Gives each worker of a dressed context its page's identity before the worker's first line: the
 * user agent override, in the Emulation domain (navigator's user agent, platform, languages and
 * client hints) and the Network one (its requests' headers). Puppeteer attaches to every new worker while it waits
 * for the debugger, announces it ('targetAvailable', synchronously) and only then lets it run, so
 * commands sent from that event reach the worker before puppeteer's `runIfWaitingForDebugger` (one
 * session's commands run in order). Dedicated workers hang off their page, shared workers off the
 * browser: both are found by their browser context. Service workers are let go by puppeteer before
 * they are announced; an override would not reach what they state anyway (their navigator is the
 * browser's own), which is why heavy's command line states the desktop user agent (decision 0043).
 */
export class WorkerDressing {
  private static readonly byBrowser = new WeakMap<Browser, WorkerDressing>();
  private readonly identities = new WeakMap<BrowserContext, WorkerIdentity>();

  static of(browser: Browser): WorkerDressing {
    let dressing = WorkerDressing.byBrowser.get(browser);
    if (!dressing) {
      dressing = new WorkerDressing();
      const targets = (browser as unknown as BrowserInternals)._targetManager?.();
      targets?.on('targetAvailable', dressing.available.bind(dressing));
      WorkerDressing.byBrowser.set(browser, dressing);
    }
    return dressing;
  }

  dress(context: BrowserContext, identity: WorkerIdentity): void {
    this.identities.set(context, identity);
  }

  private available(target: TargetInternals): void {
    if (!DRESSED_TARGETS.has(target._getTargetInfo?.().type ?? '')) return;
    const identity = this.identities.get(target.browserContext());
    const session = target._session?.();
    if (!identity || !session) return;
    session.send('Emulation.setUserAgentOverride', identity).catch(() => undefined);
    session.send('Network.setUserAgentOverride', identity).catch(() => undefined);
  }
}
