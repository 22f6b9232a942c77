import { fingerprintProfileFor, type HostMachine } from './fingerprint-profile';

describe(fingerprintProfileFor.name, () => {
  const version = '156.0.8078.79';
  // What Chromium 156 states of itself (read from the browser at launch: BrowserLauncher).
  const clientHints = {
    platformVersion: '',
    brands: [
      { brand: 'Not:A-Brand', version: '8' },
      { brand: 'Chromium', version: '156' },
    ],
    fullVersionList: [
      { brand: 'Not:A-Brand', version: '8.0.0.0' },
      { brand: 'Chromium', version },
    ],
  };

  const linux: HostMachine = { os: 'linux', arch: 'x86_64' };

  it("makes a desktop identity of the machine it runs on, whose UA, client hints, platform and screen agree, stating the browser's own brands", () => {
    const p = fingerprintProfileFor({ windowSize: 'desktop', language: '', browserVersion: version, clientHints }, undefined, linux);
    expect(p.userAgent).toBe('Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36');
    expect(p).toMatchObject({
      device: 'desktop',
      platform: 'Linux x86_64',
      viewport: { width: 1920, height: 1080, isMobile: false, hasTouch: false },
      screen: { width: 1920, height: 1080 },
    });
    expect(p.userAgentMetadata).toMatchObject({
      platform: 'Linux',
      platformVersion: '',
      architecture: 'x86',
      bitness: '64',
      mobile: false,
      fullVersion: version,
    });
    // No brand the browser does not state (a "Google Chrome" a Chromium build lacks would show in its service workers).
    const { brands, fullVersionList, platformVersion } = p.userAgentMetadata;
    expect({ brands, fullVersionList, platformVersion }).toEqual(clientHints);
    expect({ languages: p.languages, acceptLanguage: p.acceptLanguage, locale: p.locale, timezone: p.timezone }).toEqual({
      languages: ['en-US', 'en'],
      acceptLanguage: 'en-US,en',
      locale: 'en-US',
      timezone: 'America/New_York',
    });
  });

  it("names the machine's own system on every host: no Windows claim on Linux, no Mac claim off a Mac", () => {
    const ask = { windowSize: 'desktop' as const, language: '', browserVersion: version, clientHints };
    const arm = fingerprintProfileFor(ask, undefined, { os: 'linux', arch: 'aarch64' });
    expect(arm).toMatchObject({ platform: 'Linux aarch64', userAgentMetadata: { architecture: 'arm' } });
    expect(arm.userAgent).toContain('(X11; Linux aarch64)');
    const mac = fingerprintProfileFor(ask, undefined, { os: 'mac', arch: 'aarch64' });
    expect(mac).toMatchObject({ platform: 'MacIntel', userAgentMetadata: { platform: 'macOS' } });
    const windows = fingerprintProfileFor(ask, undefined, { os: 'windows', arch: 'x86_64' });
    expect(windows).toMatchObject({ platform: 'Win32', userAgentMetadata: { platform: 'Windows' } });
  });

  it("makes a mobile identity with touch, a mobile UA and the browser's own brands", () => {
    const p = fingerprintProfileFor({ windowSize: 'mobile', language: 'fr-FR', browserVersion: version, clientHints });
    expect(p.userAgent).toMatch(/Android .* Chrome\/156\.0\.0\.0 Mobile Safari/);
    expect(p).toMatchObject({
      device: 'mobile',
      platform: 'Linux armv81',
      viewport: { isMobile: true, hasTouch: true },
      timezone: 'Europe/Paris',
      languages: ['fr-FR', 'fr'],
    });
    expect(p.userAgentMetadata).toMatchObject({ platform: 'Android', mobile: true });
    expect(p.viewport.width).toBeLessThan(500);
    expect(p.userAgentMetadata.brands).toEqual(clientHints.brands);
  });

  it('follows the language: a bare language takes its usual region and time zone', () => {
    expect(fingerprintProfileFor({ windowSize: 'desktop', language: 'de', browserVersion: version, clientHints })).toMatchObject({
      languages: ['de'],
      locale: 'de',
      timezone: 'Europe/Berlin',
    });
    expect(fingerprintProfileFor({ windowSize: 'desktop', language: 'en-GB', browserVersion: version, clientHints })).toMatchObject({
      languages: ['en-GB', 'en'],
      timezone: 'Europe/London',
    });
    expect(fingerprintProfileFor({ windowSize: 'desktop', language: 'pt-BR', browserVersion: version, clientHints }).timezone).toBe(
      'America/Sao_Paulo',
    );
  });

  it('picks a realistic random identity for window_size any, mobile or desktop as a whole', () => {
    let n = 0;
    const pick = (max: number) => n++ % max;
    const seen = new Set<string>();
    for (let i = 0; i < 20; i += 1) {
      const p = fingerprintProfileFor({ windowSize: 'any', language: 'en-US', browserVersion: version, clientHints }, pick);
      seen.add(p.device);
      expect(p.viewport.isMobile).toBe(p.device === 'mobile');
      expect(/Mobile/.test(p.userAgent)).toBe(p.device === 'mobile');
      expect(p.userAgentMetadata.mobile).toBe(p.device === 'mobile');
    }
    expect(seen).toEqual(new Set(['desktop', 'mobile']));
  });
});
