import type { CapturedNetworkRequest } from '@lib/contracts';
import { discoverApi } from './api-discovery';

const TEXT =
  'Harbour ferries resume Saturday schedule after storm repairs; commuters welcomed extended evening departures between terminals';
const request = (url: string, body: string, extra: Partial<CapturedNetworkRequest> = {}): CapturedNetworkRequest => ({
  url,
  method: 'GET',
  resource_type: 'xhr',
  status: 200,
  mime_type: 'application/json',
  request_headers: {},
  response_headers: {},
  size: body.length,
  duration: 12,
  body,
  body_encoding: 'utf8',
  body_truncated: false,
  error: null,
  ...extra,
});
const CONTENT_JSON = JSON.stringify({
  items: [
    {
      title: 'Harbour ferries resume Saturday schedule',
      summary: 'after storm repairs; commuters welcomed extended evening departures between terminals',
    },
  ],
});

describe('discoverApi', () => {
  it('finds same-site JSON that carries the page content, and the api. subdomain', () => {
    const found = discoverApi('https://www.news.example/story', TEXT, '<html></html>', [
      request('https://www.news.example/api/stories?page=1', CONTENT_JSON),
      request('https://api.news.example/v2/feed', CONTENT_JSON, { resource_type: 'fetch' }),
    ]);
    expect(found).toMatchObject({
      apiDetected: true,
      apiEndpoints: ['https://www.news.example/api/stories?page=1', 'https://api.news.example/v2/feed'],
      authHeadersSeen: false,
    });
  });

  it('ignores beacons, third parties, non-JSON, failures and scripts', () => {
    const found = discoverApi('https://www.news.example/story', TEXT, '<html></html>', [
      request('https://www.news.example/collect', JSON.stringify({ ok: true })),
      request('https://cdn.widgets.test/feed.json', CONTENT_JSON),
      request('https://www.news.example/story.html', CONTENT_JSON, { mime_type: 'text/html' }),
      request('https://www.news.example/api/stories', CONTENT_JSON, { status: 500 }),
      request('https://www.news.example/app.js', CONTENT_JSON, { resource_type: 'script' }),
      request('https://evil.co.uk/api', CONTENT_JSON),
    ]);
    expect(found).toMatchObject({ apiDetected: false, apiEndpoints: [] });
  });

  it('never takes a public suffix for the site (shop.example.co.uk is not every co.uk host)', () => {
    const found = discoverApi('https://shop.example.co.uk/', TEXT, '', [
      request('https://other.co.uk/api', CONTENT_JSON),
      request('https://api.example.co.uk/items', CONTENT_JSON),
    ]);
    expect(found.apiEndpoints).toEqual(['https://api.example.co.uk/items']);
  });

  it('notes credentials sent with an endpoint, and base64 bodies', () => {
    const found = discoverApi('https://app.example.com/', TEXT, '', [
      request('https://app.example.com/graphql', Buffer.from(CONTENT_JSON).toString('base64'), {
        method: 'POST',
        body_encoding: 'base64',
        request_headers: { Authorization: 'Bearer x' },
      }),
    ]);
    expect(found).toMatchObject({ apiDetected: true, authHeadersSeen: true });
  });

  it('reports data embedded for scripts', () => {
    const html =
      '<script id="__NEXT_DATA__" type="application/json">{}</script><script type="application/ld+json">{}</script><script>window.__INITIAL_STATE__ = {}</script>';
    expect(discoverApi('https://a.example/', TEXT, html, []).embeddedData).toEqual([
      '__NEXT_DATA__',
      'application/ld+json',
      '__INITIAL_STATE__',
    ]);
  });
});
