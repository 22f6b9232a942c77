import { normalUrl } from '@lib/url-normal-form';
import { InvalidScopePatternError } from '../site-discovery.errors';
import { compilePattern, SiteScope, TRAP_RULES } from './site-scope';

const scope = (settings: Partial<ConstructorParameters<typeof SiteScope>[0]> = {}) =>
  new SiteScope({ startHost: 'www.example.com', includeSubdomains: false, domains: [], includePaths: [], excludePaths: [], ...settings });
const verdict = (s: SiteScope, url: string) => s.verdict(normalUrl(url)!);

describe('SiteScope', () => {
  it('keeps to the start host (www. aside), its subdomains when asked, and listed domains', () => {
    const plain = scope();
    expect(verdict(plain, 'https://example.com/a')).toBe('in');
    expect(verdict(plain, 'https://www.example.com/a')).toBe('in');
    expect(verdict(plain, 'https://blog.example.com/a')).toBe('scope');
    expect(verdict(plain, 'https://example.com.evil.test/a')).toBe('scope');
    const wide = scope({ includeSubdomains: true, domains: ['docs.other.org'] });
    expect(verdict(wide, 'https://blog.example.com/a')).toBe('in');
    expect(verdict(wide, 'https://docs.other.org/a')).toBe('in');
    expect(verdict(wide, 'https://notexample.com/a')).toBe('scope');
  });

  it('applies globs to the path and re: expressions to path and query; exclude wins', () => {
    const s = scope({ includePaths: ['/blog/**', 're:^/p/[0-9]+\\?page=\\d$'], excludePaths: ['/blog/drafts/*'] });
    expect(verdict(s, 'https://example.com/blog/2026/post')).toBe('in');
    expect(verdict(s, 'https://example.com/p/12?page=3')).toBe('in');
    expect(verdict(s, 'https://example.com/p/12?page=33')).toBe('scope');
    expect(verdict(s, 'https://example.com/blog/drafts/x')).toBe('scope');
    expect(verdict(s, 'https://example.com/shop/x')).toBe('scope');
  });

  it('refuses invalid patterns with a domain error, and runs catastrophic expressions in linear time', () => {
    expect(() => compilePattern('re:(unclosed')).toThrow(InvalidScopePatternError);
    expect(() => compilePattern('re:(a)\\1')).toThrow(InvalidScopePatternError);
    const nested = compilePattern('re:^/(a+)+$');
    const started = performance.now();
    expect(nested(new URL(`https://example.com/${'a'.repeat(20_000)}b`))).toBe(false);
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  it('drops traps: long URLs, deep paths, repeating segments, endless query permutations', () => {
    const s = scope();
    expect(verdict(s, `https://example.com/${'x'.repeat(TRAP_RULES.maxUrlLength)}`)).toBe('trap');
    expect(verdict(s, `https://example.com/${Array.from({ length: TRAP_RULES.maxSegments + 1 }, (_, i) => `d${i}`).join('/')}`)).toBe(
      'trap',
    );
    expect(verdict(s, 'https://example.com/a/b/a/b/a/b')).toBe('trap');
    for (let q = 0; q < TRAP_RULES.maxQueriesPerPath; q += 1) expect(verdict(s, `https://example.com/search?q=${q}`)).toBe('in');
    expect(verdict(s, 'https://example.com/search?q=again')).toBe('trap');
    expect(verdict(s, 'https://example.com/search?q=3')).toBe('in');
    expect(verdict(s, 'https://example.com/other?q=1')).toBe('in');
  });
});
