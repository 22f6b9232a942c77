import fc from 'fast-check';
import { normalUrl } from './url-normal-form';

const key = (url: string) => normalUrl(url)?.key;

describe('normalUrl', () => {
  it('gives the six spellings the generated site links each article by one key', () => {
    const spellings = [
      'http://127.0.0.1:8080/s1/p21',
      'http://127.0.0.1:8080/s1/p21/',
      'http://127.0.0.1:8080/s1/p21#comments',
      'http://127.0.0.1:8080/s1/p21?utm_source=feed&utm_medium=rss',
      'http://127.0.0.1:8080/s1/p21;jsessionid=ABC123?sessionid=42',
      'HTTP://127.0.0.1:8080/s1/p21',
    ];
    expect(new Set(spellings.map(key))).toEqual(new Set(['http://127.0.0.1:8080/s1/p21']));
  });

  it.each([
    ['HTTPS://Example.COM:443/a', 'https://example.com/a'],
    ['http://example.com:80', 'http://example.com/'],
    ['http://example.com/a/./b/../c', 'http://example.com/a/c'],
    ['http://example.com/%7Euser/%2f', 'http://example.com/~user/%2F'],
    ['http://example.com/?b=2&a=1&fbclid=x&gclid=y', 'http://example.com/?a=1&b=2'],
    ['http://example.com/p?utm_campaign=x', 'http://example.com/p'],
    ['http://user:pw@example.com/', 'http://example.com/'],
    ['http://bücher.example/', 'http://xn--bcher-kva.example/'],
  ])('%s → %s', (raw, normal) => {
    expect(normalUrl(raw)?.url).toBe(normal);
  });

  it('keeps the spelling it was given for the URL and drops only the trailing slash from the key', () => {
    expect(normalUrl('http://example.com/a/')).toEqual({ url: 'http://example.com/a/', key: 'http://example.com/a', host: 'example.com' });
    expect(normalUrl('http://example.com/a/?x=1')?.key).toBe('http://example.com/a?x=1');
    expect(normalUrl('http://example.com/')?.key).toBe('http://example.com/');
  });

  it('refuses what is not an http(s) URL', () => {
    for (const raw of ['mailto:a@b.c', 'javascript:alert(1)', 'ftp://example.com/', 'not a url', 'http://'])
      expect(normalUrl(raw)).toBeNull();
  });

  it('writes a % that starts no escape as %25, so decoding never makes a new escape (fast-check seed 1142254657)', () => {
    for (const raw of ['http://example.com/%%30a', 'http://example.com/a%', 'http://example.com/%zz%41']) {
      const normal = normalUrl(raw)!;
      expect(normalUrl(normal.url)).toEqual(normal);
    }
    expect(normalUrl('http://example.com/%%30a')!.url).toBe('http://example.com/%250a');
    expect(normalUrl('http://example.com/%zz%41')!.url).toBe('http://example.com/%25zzA');
  });

  it('is idempotent and insensitive to query order, fragments and tracking parameters (property)', () => {
    const segment = fc.stringMatching(/^[A-Za-z0-9._~%-]{0,8}$/);
    const param = fc.tuple(fc.stringMatching(/^[a-z]{1,5}$/), fc.stringMatching(/^[A-Za-z0-9 %&=+]{0,6}$/));
    fc.assert(
      fc.property(
        fc.array(segment, { maxLength: 5 }),
        fc.uniqueArray(param, { selector: (p) => p[0], maxLength: 5 }),
        fc.boolean(),
        fc.string({ maxLength: 6 }),
        (segments, params, slash, fragment) => {
          const path = `/${segments.join('/')}${slash ? '/' : ''}`;
          const query = new URLSearchParams(params).toString();
          const url = `http://example.com${path}${query ? `?${query}` : ''}`;
          const normal = normalUrl(url);
          if (!normal) return;
          expect(normalUrl(normal.url)).toEqual(normal);
          const shuffled = new URLSearchParams(
            [...params].reverse().concat([
              ['utm_source', 'x'],
              ['fbclid', 'y'],
            ]),
          ).toString();
          const other = `http://EXAMPLE.com:80${path}?${shuffled}#${encodeURIComponent(fragment)}`;
          expect(normalUrl(other)?.key).toBe(normal.key);
        },
      ),
      { numRuns: 500 },
    );
  });
});
