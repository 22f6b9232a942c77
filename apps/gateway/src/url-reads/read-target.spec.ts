import fc from 'fast-check';
import { READ_OPTIONS, readTargetOf } from './read-target';

describe(readTargetOf.name, () => {
  it.each([
    ['/v1/read/https://example.com/a/b', 'https://example.com/a/b', {}],
    ['/v1/read/https://example.com/search?q=1&page=2', 'https://example.com/search?q=1&page=2', {}],
    [
      '/v1/read/https://example.com/s?q=a%20b&only_main_content=true&max_tokens=500',
      'https://example.com/s?q=a%20b',
      { only_main_content: true, max_tokens: 500 },
    ],
    ['/v1/read/https:/example.com/merged', 'https://example.com/merged', {}],
    ['/v1/read/example.com/x?format=html', 'https://example.com/x', { format: 'html' }],
    ['/v1/read/localhost:8080/x', 'https://localhost:8080/x', {}],
    ['/v1/read/https%3A%2F%2Fexample.com%2F%3Fformat%3Dcsv?format=markdown', 'https://example.com/?format=csv', { format: 'markdown' }],
    ['/v1/read/http://127.0.0.1:9/p?browser=0&include_metadata=1', 'http://127.0.0.1:9/p', { browser: false, include_metadata: true }],
    ['/v1/read/', '', {}],
    ['/v1/read/https://example.com/?max_age=soon', 'https://example.com/', { max_age: 'soon' }],
  ])('%s → %s', (raw, url, options) => {
    expect(readTargetOf(raw)).toEqual({ url, options });
  });

  it('keeps every parameter that is not an option with the target, in its order and encoding', () => {
    const name = fc.stringMatching(/^[a-z_]{1,8}$/).filter((n) => !READ_OPTIONS.includes(n));
    const value = fc.stringMatching(/^[A-Za-z0-9%._~-]{0,8}$/);
    fc.assert(
      fc.property(fc.array(fc.tuple(name, value), { maxLength: 6 }), fc.subarray([...READ_OPTIONS]), (pairs, options) => {
        const own = pairs.map(([n, v]) => `${n}=${v}`);
        const mixed = [...own];
        options.forEach((option, i) => mixed.splice(Math.min(i * 2, mixed.length), 0, `${option}=x`));
        const target = readTargetOf(`/v1/read/https://site.example/p${mixed.length ? `?${mixed.join('&')}` : ''}`);
        expect(target.url).toBe(`https://site.example/p${own.length ? `?${own.join('&')}` : ''}`);
        expect(Object.keys(target.options).sort()).toEqual([...options].sort());
      }),
    );
  });
});
