import { ProxyPoolMissingError } from '../scrape-engine.errors';
import { proxyLabel, ProxyRotation, proxySettingsOf } from './proxy-rotation';

describe(ProxyRotation.name, () => {
  const rotation = (pool: Record<string, string[]>) => new ProxyRotation({ proxyPool: pool });

  it('rotates round robin over the any list, and over a country list for its code', () => {
    const r = rotation({ any: ['http://a:1', 'http://b:1'], DE: ['http://de:1'] });
    expect([r.next(null), r.next('any'), r.next(null)]).toEqual(['http://a:1', 'http://b:1', 'http://a:1']);
    expect([r.next('de'), r.next('DE')]).toEqual(['http://de:1', 'http://de:1']);
  });

  it('connects directly without use_proxy when no pool is configured', () => {
    expect(rotation({}).next(null)).toBeNull();
  });

  it('refuses "any" or a country without a configured pool instead of connecting directly', () => {
    expect(() => rotation({}).next('any')).toThrow(ProxyPoolMissingError);
    expect(() => rotation({ any: ['http://a:1'] }).next('FR')).toThrow(/No proxy is configured for "FR"/);
  });

  it('labels a proxy by host, never with its credentials', () => {
    expect(proxyLabel('http://user:secret@proxy.example:8000')).toBe('proxy.example:8000');
    expect(proxyLabel(null)).toBeNull();
  });
});

describe('proxySettingsOf', () => {
  it.each([
    [null, { selection: null, maxRetries: 3, delayMs: 1000, backoff: 2 }],
    ['any', { selection: 'any', maxRetries: 3, delayMs: 1000, backoff: 2 }],
    [
      { proxy: 'de', max_retries: 1, delay_seconds: 0, backoff_factor: 3 },
      { selection: 'de', maxRetries: 1, delayMs: 0, backoff: 3 },
    ],
  ])('reads %p', (useProxy, expected) => {
    expect(proxySettingsOf(useProxy as never)).toEqual(expected);
  });
});
