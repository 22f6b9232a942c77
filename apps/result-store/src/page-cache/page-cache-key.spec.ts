import fc from 'fast-check';
import { pageCacheKey } from './page-cache-key';

const headerName = fc.stringMatching(/^[A-Za-z][A-Za-z0-9-]{0,15}$/);
const headers = fc.dictionary(headerName, fc.string({ maxLength: 20 }), { maxKeys: 5 });
const url = fc.constantFrom('https://example.com/a', 'https://example.com/a/', 'https://example.com/a?x=1&y=2', 'http://shop.test/p/1');

/** Any request a client may send: the options that change a result, each in a range of values. */
const request = fc.record(
  {
    url,
    format: fc.constantFrom('html', 'markdown'),
    only_main_content: fc.boolean(),
    browser: fc.boolean(),
    browser_type: fc.constantFrom('heavy', 'light'),
    headers,
    language: fc.constantFrom('', 'en-US', 'de'),
    window_size: fc.constantFrom('desktop', 'mobile'),
    extract: fc.option(fc.dictionary(fc.constantFrom('title', 'price'), fc.constantFrom('h1', '.price'), { minKeys: 1 }), { nil: null }),
    use_proxy: fc.option(fc.constantFrom('any', 'us', 'de'), { nil: null }),
  },
  { requiredKeys: ['url'] },
);

function shuffledCase(record: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(record)
      .reverse()
      .map(([name, value], i) => [i % 2 ? name.toUpperCase() : name.toLowerCase(), value]),
  );
}

describe(pageCacheKey.name, () => {
  it('is the same for what does not change the result: labels, cache fields, defaults spelt out, header case and order, the fragment, proxy retries', () => {
    fc.assert(
      fc.property(request, fc.string(), fc.nat(), (r, customId, maxAge) => {
        const key = pageCacheKey(r).key;
        const headersAsWritten = r.headers ? shuffledCase(r.headers) : r.headers;
        // Header names are case-insensitive; two that differ only in case would collide, so they are left out.
        fc.pre(!r.headers || new Set(Object.keys(r.headers).map((n) => n.toLowerCase())).size === Object.keys(r.headers).length);
        const same = {
          ...r,
          url: `${r.url}#section`,
          headers: headersAsWritten,
          custom_id: customId,
          max_age: maxAge,
          revalidate: false,
          use_proxy: r.use_proxy ? { proxy: r.use_proxy.toUpperCase(), max_retries: 7 } : r.use_proxy,
        };
        expect(pageCacheKey(same).key).toBe(key);
      }),
    );
    expect(pageCacheKey({ url: 'https://example.com/a' }).key).toBe(
      pageCacheKey({ url: 'https://EXAMPLE.com:443/a', format: 'html', browser: false, include_images: true }).key,
    );
  });

  it('differs on every option that changes the result', () => {
    const base = { url: 'https://example.com/a', headers: { 'x-one': '1' } };
    const changes: Record<string, unknown>[] = [
      { url: 'https://example.com/a/' },
      { url: 'https://example.com/a?page=2' },
      { format: 'markdown' },
      { only_main_content: true },
      { include_images: false },
      { include_metadata: true },
      { browser: true },
      { headers: { 'x-one': '2' } },
      { headers: { 'x-one': '1', 'x-two': '1' } },
      { cookies: { session: 'a' } },
      { language: 'de' },
      { window_size: 'mobile' },
      { extract: { title: 'h1' } },
      { use_proxy: 'us' },
      { retry_on_block: true },
      { http_method: { method: 'post', payload: { q: 1 } } },
    ];
    const keys = new Set([pageCacheKey(base).key, ...changes.map((change) => pageCacheKey({ ...base, ...change }).key)]);
    expect(keys.size).toBe(changes.length + 1);
    // The browser's own options count only with browser=true, and then they do.
    expect(pageCacheKey({ ...base, browser: true, browser_type: 'light' }).key).not.toBe(pageCacheKey({ ...base, browser: true }).key);
    expect(pageCacheKey({ ...base, browser_type: 'light' }).key).toBe(pageCacheKey(base).key);
  });
});
