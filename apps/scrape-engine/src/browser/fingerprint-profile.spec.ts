import { fingerprintProfileFor } from './fingerprint-profile';

describe(fingerprintProfileFor.name, () => {
  const version = '156.0.8078.79';

  it('makes a desktop identity whose UA, client hints, platform, screen and GPU agree', () => {
    const p = fingerprintProfileFor({ windowSize: 'desktop', language: '', browserVersion: version });
    expect(p.userAgent).toBe(
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36',
    );
    expect(p).toMatchObject({
      device: 'desktop',
      platform: 'Win32',
      viewport: { width: 1920, height: 1080, isMobile: false, hasTouch: false },
      screen: { width: 1920, height: 1080 },
    });
    expect(p.userAgentMetadata).toMatchObject({ platform: 'Windows', mobile: false, fullVersion: version });
    expect(p.userAgentMetadata.brands.find((b) => b.brand === 'Chromium')?.version).toBe('156');
    expect(p.webgl.vendor).toMatch(/^Google Inc\. \(/);
    expect(p.webgl.renderer).toMatch(/Direct3D11/);
    expect({ languages: p.languages, acceptLanguage: p.acceptLanguage, locale: p.locale, timezone: p.timezone }).toEqual({
      languages: ['en-US', 'en'],
      acceptLanguage: 'en-US,en',
      locale: 'en-US',
      timezone: 'America/New_York',
    });
  });

  it('makes a mobile identity with touch, a mobile UA and a mobile GPU', () => {
    const p = fingerprintProfileFor({ windowSize: 'mobile', language: 'fr-FR', browserVersion: version });
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
    expect(['Qualcomm', 'ARM']).toContain(p.webgl.vendor);
  });

  it('follows the language: a bare language takes its usual region and time zone', () => {
    expect(fingerprintProfileFor({ windowSize: 'desktop', language: 'de', browserVersion: version })).toMatchObject({
      languages: ['de'],
      locale: 'de',
      timezone: 'Europe/Berlin',
    });
    expect(fingerprintProfileFor({ windowSize: 'desktop', language: 'en-GB', browserVersion: version })).toMatchObject({
      languages: ['en-GB', 'en'],
      timezone: 'Europe/London',
    });
    expect(fingerprintProfileFor({ windowSize: 'desktop', language: 'pt-BR', browserVersion: version }).timezone).toBe('America/Sao_Paulo');
  });

  it('picks a realistic random identity for window_size any, mobile or desktop as a whole', () => {
    let n = 0;
    const pick = (max: number) => n++ % max;
    const seen = new Set<string>();
    for (let i = 0; i < 20; i += 1) {
      const p = fingerprintProfileFor({ windowSize: 'any', language: 'en-US', browserVersion: version }, pick);
      seen.add(p.device);
      expect(p.viewport.isMobile).toBe(p.device === 'mobile');
      expect(/Mobile/.test(p.userAgent)).toBe(p.device === 'mobile');
      expect(p.userAgentMetadata.mobile).toBe(p.device === 'mobile');
    }
    expect(seen).toEqual(new Set(['desktop', 'mobile']));
  });
});
