import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { PAGE_CORPUS_SAMPLE } from './page-corpus';
import {
  ARTICLE,
  CAPTCHA_WIDGETS,
  CLOUDFLARE_CHALLENGE_PAGE,
  CLOUDFLARE_HEADERS,
  CLOUDFLARE_TURNSTILE_PAGE,
  cloudflareBlockPage,
  PASSWORD_FORM,
  VENDOR_PAGES,
} from './protected-pages';

/** The vendored sample of the real page corpus (32 pages as their sites served them). */
export const CORPUS_DIR = PAGE_CORPUS_SAMPLE;

export function corpusPageNames(): string[] {
  return fs
    .readdirSync(CORPUS_DIR)
    .filter((name) => fs.existsSync(path.join(CORPUS_DIR, name, 'source.html')))
    .sort();
}

/**
 * What the viability analysis should answer for each kind of fixture page; the corpus pages are
 * `extract_html` (static articles as their sites served them).
 */
export interface ViabilityFixture {
  path: string;
  class: 'static' | 'spa-api' | 'spa-rendered' | 'login' | 'challenge' | 'captcha' | 'block' | 'vendor-present';
  expected: 'extract_html' | 'browser' | 'api' | 'blocked';
  /** At quick depth (no browser): an app shell is `browser` (untested), its API unseen. */
  expectedQuick?: 'browser';
}

const ITEMS = [
  'aubergine',
  'telescope',
  'marmalade',
  'harmonica',
  'porcupine',
  'lighthouse',
  'avalanche',
  'chrysanthemum',
  'kaleidoscope',
  'trampoline',
  'saxophone',
  'watermelon',
];
const CATALOGUE = {
  title: 'Curiosity catalogue',
  items: ITEMS.map((name, i) => ({
    name,
    description: `A ${name} of remarkable craftsmanship, catalogue entry number ${i + 1}, shipped worldwide.`,
  })),
};

// An app shell: nothing readable until its script runs (served from this site, as CSP demands).
const shell = (script: string) =>
  `<!doctype html><html><head><title>Shop</title></head><body><div id="root"></div><noscript>You need to enable JavaScript to run this app.</noscript><script src="${script}"></script></body></html>`;
const renderScript = (source: string) =>
  `(async () => { const data = ${source}; const root = document.getElementById('root'); root.innerHTML = '<h1>' + data.title + '</h1>' + data.items.map((i) => '<article><h2>' + i.name + '</h2><p>' + i.description + '</p></article>').join(''); })();`;

export const VIABILITY_FIXTURES: ViabilityFixture[] = [
  { path: '/article', class: 'static', expected: 'extract_html' },
  { path: '/cloudflare/present', class: 'vendor-present', expected: 'extract_html' },
  ...VENDOR_PAGES.map((v): ViabilityFixture => ({
    path: `/vendor/${v.vendor}/present`,
    class: 'vendor-present',
    expected: 'extract_html',
  })),
  { path: '/spa/api', class: 'spa-api', expected: 'api', expectedQuick: 'browser' },
  { path: '/spa/rendered', class: 'spa-rendered', expected: 'browser' },
  { path: '/login', class: 'login', expected: 'blocked' },
  { path: '/basic-auth', class: 'login', expected: 'blocked' },
  { path: '/cloudflare/challenge', class: 'challenge', expected: 'blocked' },
  { path: '/cloudflare/turnstile', class: 'captcha', expected: 'blocked' },
  { path: '/cloudflare/block/1020', class: 'block', expected: 'blocked' },
  { path: '/cloudflare/block/1015', class: 'block', expected: 'blocked' },
  ...VENDOR_PAGES.map((v): ViabilityFixture => ({ path: `/vendor/${v.vendor}/challenge`, class: 'challenge', expected: 'blocked' })),
  ...CAPTCHA_WIDGETS.map(([provider]): ViabilityFixture => ({ path: `/captcha/${provider}`, class: 'captcha', expected: 'blocked' })),
];

export interface ViabilityFixtureSite {
  url: string;
  port: number;
  /** Requests per path, to see what the probes fetched. */
  hits: Map<string, number>;
  close(): Promise<void>;
}

/**
 * A local site (127.0.0.1 only) with one page per kind of target the viability analysis tells apart,
 * plus the real corpus under /corpus/<name>, /slow?ms=&times= (an article after a delay, for the
 * first `times` requests of that URL), /to?url= (a
 * redirect anywhere: the SSRF cases) and /spa/private (an app whose API wants a bearer token).
 * Every answer carries `Content-Security-Policy: default-src 'self'`, so the vendors' script URLs
 * on these pages stay inert in a browser.
 */
export async function startViabilityFixtureSite(): Promise<ViabilityFixtureSite> {
  const hits = new Map<string, number>();
  const slowSeen = new Map<string, number>();
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://fixture');
    hits.set(url.pathname, (hits.get(url.pathname) ?? 0) + 1);
    const send = (
      status: number,
      body: string | Buffer,
      headers: Record<string, string | string[]> = {},
      type = 'text/html; charset=utf-8',
    ) => res.writeHead(status, { 'content-type': type, 'content-security-policy': "default-src 'self'", ...headers }).end(body);
    const page = (inner: string) => `<!doctype html><html><head><title>Field notes</title></head><body>${inner}</body></html>`;
    const parts = url.pathname.split('/').filter(Boolean);
    const vendor = parts[0] === 'vendor' ? VENDOR_PAGES.find((v) => v.vendor === parts[1]) : undefined;
    const captcha = parts[0] === 'captcha' ? CAPTCHA_WIDGETS.find(([provider]) => provider === parts[1]) : undefined;

    if (url.pathname === '/article') return send(200, page(ARTICLE));
    if (url.pathname === '/slow') {
      // `times`: only the first n requests of this exact URL are slow (a page that hung once).
      const seen = (slowSeen.get(url.search) ?? 0) + 1;
      slowSeen.set(url.search, seen);
      const slow = seen <= Number(url.searchParams.get('times') ?? Infinity);
      return void setTimeout(() => send(200, page(ARTICLE)), slow ? Number(url.searchParams.get('ms') ?? 1000) : 0).unref();
    }
    if (url.pathname === '/to') return send(302, '', { location: url.searchParams.get('url') ?? '/' });
    if (url.pathname === '/spa/api') return send(200, shell('/static/api.js'));
    if (url.pathname === '/static/api.js')
      return send(200, renderScript("await (await fetch('/api/catalogue')).json()"), {}, 'application/javascript');
    if (url.pathname === '/api/catalogue') return send(200, JSON.stringify(CATALOGUE), {}, 'application/json');
    if (url.pathname === '/spa/rendered') return send(200, shell('/static/rendered.js'));
    if (url.pathname === '/static/rendered.js') return send(200, renderScript(JSON.stringify(CATALOGUE)), {}, 'application/javascript');
    if (url.pathname === '/spa/private') return send(200, shell('/static/private.js'));
    if (url.pathname === '/static/private.js')
      return send(
        200,
        renderScript("await (await fetch('/api/private', { headers: { authorization: 'Bearer session-token' } })).json()"),
        {},
        'application/javascript',
      );
    if (url.pathname === '/api/private') {
      return req.headers.authorization === 'Bearer session-token'
        ? send(200, JSON.stringify(CATALOGUE), {}, 'application/json')
        : send(401, JSON.stringify({ error: 'unauthorized' }), { 'www-authenticate': 'Bearer' }, 'application/json');
    }
    if (url.pathname === '/login') return send(302, '', { location: '/signin?next=%2Flogin' });
    if (url.pathname === '/signin') return send(200, page(`<h1>Sign in</h1>${PASSWORD_FORM}`));
    if (url.pathname === '/basic-auth') return send(401, 'Unauthorized', { 'www-authenticate': 'Basic realm="intranet"' }, 'text/plain');
    if (url.pathname === '/cloudflare/present') return send(200, page(ARTICLE), CLOUDFLARE_HEADERS);
    if (url.pathname === '/cloudflare/challenge')
      return send(403, CLOUDFLARE_CHALLENGE_PAGE, { ...CLOUDFLARE_HEADERS, 'cf-mitigated': 'challenge' });
    if (url.pathname === '/cloudflare/turnstile') return send(403, CLOUDFLARE_TURNSTILE_PAGE, CLOUDFLARE_HEADERS);
    if (parts[0] === 'cloudflare' && parts[1] === 'block')
      return send(parts[2] === '1015' ? 429 : 403, cloudflareBlockPage(parts[2] ?? '1020'), CLOUDFLARE_HEADERS);
    if (vendor && parts[2] === 'present') return send(200, page(`${ARTICLE}${vendor.present.body ?? ''}`), vendor.present.headers ?? {});
    if (vendor && parts[2] === 'challenge') return send(vendor.challenge.status, vendor.challenge.body, vendor.challenge.headers ?? {});
    if (captcha) return send(200, `<html><head><title>Security check</title></head><body><form>${captcha[1]}</form></body></html>`);
    if (parts[0] === 'corpus' && parts[1] && !parts[1].includes('..')) {
      const file = path.join(CORPUS_DIR, parts[1], 'source.html');
      if (fs.existsSync(file)) return send(200, fs.readFileSync(file), {}, 'text/html');
    }
    send(404, 'not found', {}, 'text/plain');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    hits,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
