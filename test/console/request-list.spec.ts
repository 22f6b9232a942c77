import fc from 'fast-check';
import { csvFields, parseRequestList } from '../../apps/console/src/collections/request-list';

/** A collection's list as users paste or upload it: lines of URLs, CSV with a header, or JSON. */
describe('parseRequestList', () => {
  const shared = { format: 'markdown' as const, browser: true };

  it('reads one URL a line, giving each the shared options', () => {
    expect(parseRequestList('https://a.example/\n\n  https://b.example/x  \r\n', shared)).toEqual({
      requests: [
        { url: 'https://a.example/', format: 'markdown', browser: true },
        { url: 'https://b.example/x', format: 'markdown', browser: true },
      ],
      unreadable: [],
    });
  });

  it('reads JSON: URLs get the shared options, request objects are sent as they are', () => {
    const parsed = parseRequestList(JSON.stringify(['https://a.example/', { url: 'https://b.example/', format: 'pdf' }, 7]), shared);
    expect(parsed.requests).toEqual([
      { url: 'https://a.example/', format: 'markdown', browser: true },
      { url: 'https://b.example/', format: 'pdf' },
    ]);
    expect(parsed.unreadable).toEqual(['item 2: 7']);
    expect(parseRequestList('{"requests": ["https://c.example/"]}', { format: 'html', browser: false }).requests).toEqual([
      { url: 'https://c.example/' },
    ]);
    expect(parseRequestList('[not json', shared).unreadable[0]).toMatch(/^Not valid JSON/);
  });

  it('reads CSV with a url column and the optional custom_id, format and browser columns', () => {
    const csv = 'custom_id,URL,browser,format\nfirst,https://a.example/,yes,html\n"second, with comma",https://b.example/,false,\n,,,\n';
    expect(parseRequestList(csv, shared)).toEqual({
      requests: [
        { url: 'https://a.example/', format: 'html', browser: true, custom_id: 'first' },
        { url: 'https://b.example/', format: 'markdown', browser: false, custom_id: 'second, with comma' },
      ],
      unreadable: ['line 4: no url'],
    });
  });

  it('splits any CSV line written by the RFC 4180 rules back into its fields', () => {
    // Fields without line breaks (a request list has one request a line) and without outer spaces (trimmed).
    const field = fc.string({ unit: 'grapheme' }).map((s) => s.replace(/[\r\n]/g, '').trim());
    fc.assert(
      fc.property(fc.array(field, { minLength: 1, maxLength: 6 }), (fields) => {
        const line = fields.map((f) => (/[",]/.test(f) || f === '' ? `"${f.replace(/"/g, '""')}"` : f)).join(',');
        expect(csvFields(line)).toEqual(fields);
      }),
      { numRuns: 500 },
    );
  });
});
