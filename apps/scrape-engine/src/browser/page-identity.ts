import type { Browser, BrowserContext, CDPSession, Page } from 'rebrowser-puppeteer-core';
import type { FingerprintProfile } from './fingerprint-profile';
import { identityScript, type RealmIdentity } from './identity-script';

/**
 * Gives a page the profile's identity before anything loads. Native overrides where Chromium has
 * them (user agent with client hints and navigator.platform, Accept-Language and
 * navigator.languages, locale, time zone, viewport, screen and touch); for `stealthy` pages also
 * the values no override reaches (the WebGL GPU everywhere; in workers the user agent override
 * again, and what it does not reach there), in every frame and worker of the page's context.
 */
export async function dressPage(page: Page, cdp: CDPSession, profile: FingerprintProfile, stealthy: boolean): Promise<void> {
  const { viewport, screen } = profile;
  const userAgent = {
    userAgent: profile.userAgent,
    acceptLanguage: profile.acceptLanguage,
    platform: profile.platform,
    userAgentMetadata: profile.userAgentMetadata,
  };
  await Promise.all([
    cdp.send('Emulation.setUserAgentOverride', userAgent),
    cdp.send('Emulation.setLocaleOverride', { locale: profile.locale }),
    cdp.send('Emulation.setTimezoneOverride', { timezoneId: profile.timezone }),
    cdp.send('Emulation.setDeviceMetricsOverride', {
      width: viewport.width,
      height: viewport.height,
      deviceScaleFactor: viewport.deviceScaleFactor,
      mobile: viewport.isMobile,
      screenWidth: screen.width,
      screenHeight: screen.height,
      screenOrientation: viewport.isMobile ? { type: 'portraitPrimary', angle: 0 } : { type: 'landscapePrimary', angle: 0 },
    }),
    cdp.send('Emulation.setTouchEmulationEnabled', viewport.hasTouch ? { enabled: true, maxTouchPoints: 5 } : { enabled: false }),
  ]);
  if (!stealthy) return;
  const identity: RealmIdentity = {
    webgl: profile.webgl,
    platform: profile.platform,
    userAgent: profile.userAgent,
    language: profile.languages[0],
  };
  const script = identityScript(identity);
  WorkerDressing.of(page.browser()).dress(page.browserContext(), { userAgent, script });
  await page.evaluateOnNewDocument(script);
}

interface WorkerIdentity {
  /** Network.setUserAgentOverride's parameters: the page's user agent, client hints and languages. */
  userAgent: { userAgent: string; acceptLanguage: string; platform: string; userAgentMetadata: FingerprintProfile['userAgentMetadata'] };
  script: string;
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
 * user agent override (client hints, languages and request headers follow it in workers too), then
 * the identity script for what it leaves out. Puppeteer attaches to every new worker while it waits
 * for the debugger, announces it ('targetAvailable', synchronously) and only then lets it run, so
 * commands sent from that event reach the worker before puppeteer's `runIfWaitingForDebugger` (one
 * session's commands run in order). Dedicated workers hang off their page, shared workers off the
 * browser: both are found by their browser context. Service workers are let go by puppeteer before
 * they are announced and are not reached.
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
    session.send('Network.setUserAgentOverride', identity.userAgent).catch(() => undefined);
    session.send('Runtime.evaluate', { expression: identity.script }).catch(() => undefined);
  }
}
