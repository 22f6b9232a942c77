import type { CDPSession, Page } from 'puppeteer-core';
import type { FingerprintProfile } from './fingerprint-profile';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const withUtils = require('puppeteer-extra-plugin-stealth/evasions/_utils/withUtils') as (page: Page) => {
  evaluateOnNewDocument(fn: (utils: StealthUtils, opts: InPageIdentity) => void, opts: InPageIdentity): Promise<unknown>;
};

interface StealthUtils {
  replaceWithProxy(obj: object, property: string, handler: ProxyHandler<(...args: unknown[]) => unknown>): void;
  replaceGetterWithProxy(obj: object, property: string, handler: ProxyHandler<() => unknown>): void;
  cache: { Reflect: typeof Reflect };
}

interface InPageIdentity {
  webgl: FingerprintProfile['webgl'];
  hardwareConcurrency: number;
  deviceMemory: number;
  availHeight: number;
}

/**
 * Gives a page the profile's identity before anything loads. Native overrides where Chromium has
 * them (user agent with client hints and navigator.platform, Accept-Language and
 * navigator.languages, locale, time zone, viewport, screen and touch); for `stealthy` pages also
 * the values only a script can change (WebGL GPU, cores, memory), patched with the stealth
 * plugin's helpers so the patched functions still look native.
 */
export async function dressPage(page: Page, cdp: CDPSession, profile: FingerprintProfile, stealthy: boolean): Promise<void> {
  const { viewport, screen } = profile;
  await Promise.all([
    cdp.send('Emulation.setUserAgentOverride', {
      userAgent: profile.userAgent,
      acceptLanguage: profile.acceptLanguage,
      platform: profile.platform,
      userAgentMetadata: profile.userAgentMetadata,
    }),
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
  const identity: InPageIdentity = {
    webgl: profile.webgl,
    hardwareConcurrency: profile.hardwareConcurrency,
    deviceMemory: profile.deviceMemory,
    availHeight: profile.device === 'desktop' ? screen.height - 40 : screen.height,
  };
  await withUtils(page).evaluateOnNewDocument((utils, opts) => {
    const getParameter: ProxyHandler<(...args: unknown[]) => unknown> = {
      apply(target, thisArg, args) {
        const name = (args || [])[0];
        if (name === 37445) return opts.webgl.vendor; // UNMASKED_VENDOR_WEBGL
        if (name === 37446) return opts.webgl.renderer; // UNMASKED_RENDERER_WEBGL
        return utils.cache.Reflect.apply(target, thisArg, args);
      },
    };
    const scope = globalThis as unknown as Record<string, { prototype: object } | undefined>;
    for (const name of ['WebGLRenderingContext', 'WebGL2RenderingContext']) {
      const ctor = scope[name];
      if (ctor) utils.replaceWithProxy(ctor.prototype, 'getParameter', getParameter);
    }
    const navigatorProto = Object.getPrototypeOf(navigator) as object;
    utils.replaceGetterWithProxy(navigatorProto, 'hardwareConcurrency', { apply: () => opts.hardwareConcurrency });
    if ('deviceMemory' in navigator) utils.replaceGetterWithProxy(navigatorProto, 'deviceMemory', { apply: () => opts.deviceMemory });
    const screenProto = typeof Screen !== 'undefined' ? Screen.prototype : null;
    if (screenProto) utils.replaceGetterWithProxy(screenProto, 'availHeight', { apply: () => opts.availHeight });
  }, identity);
}
