import fc from 'fast-check';
import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import { TargetAllowlist, TargetBlockedError, TargetGuard } from '@lib/target-guard';
import { SiteScopeOptions } from './discovery/site-map.messages';
import { DownloadRequest } from './scrape/download-request';
import { ScrapeRequest } from './scrape/scrape-request';
import { isHttpUrlText } from './target-url-rules';
import { toProblems } from './validation-problems';

async function problemsOf(type: new () => object, body: Record<string, unknown>): Promise<Array<{ loc: unknown[]; type: string }>> {
  const errors = await validate(plainToInstance(type, body), { whitelist: true, forbidNonWhitelisted: true });
  return toProblems(errors, ['body']).map(({ loc, type: t }) => ({ loc, type: t }));
}

/** Every public request whose target is a URL field, with what else it needs to be valid. */
const TARGET_FIELDS: Array<[string, new () => object, Record<string, unknown>]> = [
  ['a scrape (and a collection item)', ScrapeRequest, {}],
  ['a download', DownloadRequest, {}],
  ['a crawl or a map start', SiteScopeOptions, {}],
];

describe('target URL rules', () => {
  it.each(TARGET_FIELDS)('says a missing, null, empty or blank url of %s is url_required, once', async (_name, type, rest) => {
    for (const url of [undefined, null, '', '   ']) {
      const body = url === undefined ? rest : { ...rest, url };
      expect(await problemsOf(type, body)).toEqual([{ loc: ['body', 'url'], type: 'url_required' }]);
    }
    // Another type is a type problem, not a missing URL.
    expect(await problemsOf(type, { ...rest, url: 5 })).toEqual([{ loc: ['body', 'url'], type: 'string_type' }]);
  });

  it('says text that is no http(s) URL is invalid_url where a field checks it (a crawl or map start)', async () => {
    for (const url of ['not a url', 'ftp://example.com/', 'example.com', 'http://', 'https://exa mple.com/'])
      expect(await problemsOf(SiteScopeOptions, { url })).toEqual([{ loc: ['body', 'url'], type: 'invalid_url' }]);
    expect(await problemsOf(SiteScopeOptions, { url: 'https://example.com/docs' })).toEqual([]);
  });

  it('agrees with the SSRF guard on what is a URL at all, for any text (property)', async () => {
    // The guard's own first check (parse, scheme, host) before any lookup: what it calls malformed or
    // the wrong protocol, the field rule calls invalid_url, and nothing else.
    const guard = new TargetGuard(new TargetAllowlist([]), { resolve: async () => ['93.184.216.34'] });
    const text = fc.oneof(
      fc.string(),
      fc.webUrl(),
      fc.constantFrom(
        'http://',
        'https://[::1',
        'HTTP://EXAMPLE.COM',
        ' https://example.com/ ',
        'mailto:a@b.c',
        'https:example.com',
        '//example.com',
      ),
      fc.tuple(fc.constantFrom('http', 'https', 'ftp', 'file', 'javascript', 'data'), fc.string()).map(([s, rest]) => `${s}:${rest}`),
    );
    await fc.assert(
      fc.asyncProperty(text, async (value) => {
        const malformed = await guard.vet(value).then(
          () => false,
          (error: unknown) =>
            error instanceof TargetBlockedError && (error.reason === 'malformed_url' || error.reason === 'invalid_protocol'),
        );
        if (value.length > 0 && value.length <= 8192) expect(isHttpUrlText(value)).toBe(!malformed);
      }),
      { numRuns: 500 },
    );
  });

  it('gives text that is no URL its own error code, and a refused target the blocked code', async () => {
    const guard = new TargetGuard(new TargetAllowlist([]), { resolve: async () => ['10.0.0.1'] });
    const codeOf = (url: string) =>
      guard.vet(url).then(
        () => null,
        (error: TargetBlockedError) => [error.code, error.reason],
      );
    expect(await codeOf('not a url')).toEqual(['target.invalid_url', 'malformed_url']);
    expect(await codeOf('ftp://example.com/')).toEqual(['target.invalid_url', 'invalid_protocol']);
    expect(await codeOf('https://example.com/')).toEqual(['target.blocked', 'private_ip']);
    expect(await codeOf('http://localhost/')).toEqual(['target.blocked', 'blocked_hostname']);
  });
});
