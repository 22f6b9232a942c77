import http from 'node:http';
import { listenOnLoopback } from './loopback-server';

/** One page of a ChangingSite as it is served now. */
export interface ServedPage {
  html: string;
  /** Sent as ETag; a request whose If-None-Match names it is answered 304. */
  etag?: string;
  /** Sent as Last-Modified; a request whose If-Modified-Since is not earlier is answered 304. */
  lastModified?: Date;
  status?: number;
  /** Sent as Content-Type (default text/html; charset=utf-8). */
  contentType?: string;
}

/**
 * A local site whose pages a test changes as it goes (127.0.0.1 only), answering conditional
 * requests as an origin does (RFC 9110 §13.1): what a page cache revalidates against, and what a
 * monitor watches. `/<name>` serves pages.get(name); an absent name is a 404.
 */
export interface ChangingSite {
  url: string;
  port: number;
  pages: Map<string, ServedPage>;
  /** Every request: its path, and the conditional headers it carried. */
  requests: { path: string; ifNoneMatch: string | null; ifModifiedSince: string | null; status: number }[];
  /** Requests to one path. */
  hitsOf(name: string): number;
  /** Each answer waits this long (a tick long enough to be interrupted). */
  delayMs: number;
  close(): Promise<void>;
}

export async function startChangingSite(): Promise<ChangingSite> {
  const pages = new Map<string, ServedPage>();
  const requests: ChangingSite['requests'] = [];
  const site = {
    pages,
    requests,
    delayMs: 0,
    hitsOf: (name: string) => requests.filter((r) => r.path === `/${name}`).length,
  } as ChangingSite;
  const server = http.createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://site').pathname;
    const page = pages.get(path.slice(1));
    const ifNoneMatch = headerOf(req.headers['if-none-match']);
    const ifModifiedSince = headerOf(req.headers['if-modified-since']);
    const answer = (status: number, headers: Record<string, string>, body: string) => {
      const send = () => {
        requests.push({ path, ifNoneMatch, ifModifiedSince, status });
        res.writeHead(status, headers).end(body);
      };
      if (site.delayMs > 0) setTimeout(send, site.delayMs).unref();
      else send();
    };
    if (!page) return answer(404, { 'content-type': 'text/html' }, '<h1>Not found</h1>');
    const validators: Record<string, string> = {};
    if (page.etag) validators.etag = page.etag;
    if (page.lastModified) validators['last-modified'] = page.lastModified.toUTCString();
    // RFC 9110 §13.2.2: If-None-Match wins over If-Modified-Since when both are sent.
    const unchanged =
      page.etag && ifNoneMatch !== null
        ? ifNoneMatch.split(',').some((tag) => tag.trim() === page.etag || tag.trim() === '*')
        : page.lastModified !== undefined &&
          ifModifiedSince !== null &&
          Date.parse(ifModifiedSince) >= Math.floor(page.lastModified.getTime() / 1000) * 1000;
    if (unchanged && (page.status ?? 200) === 200) return answer(304, validators, '');
    answer(page.status ?? 200, { 'content-type': page.contentType ?? 'text/html; charset=utf-8', ...validators }, page.html);
  });
  const listening = await listenOnLoopback(server);
  site.url = listening.url;
  site.port = listening.port;
  site.close = listening.close;
  return site;
}

function headerOf(value: string | string[] | undefined): string | null {
  return (Array.isArray(value) ? value[0] : value) ?? null;
}

/** An article page of some length whose text says `marker`. */
export function articleHtml(title: string, marker: string): string {
  return `<!doctype html><html><head><title>${title}</title></head><body><h1>${title}</h1>${`<p>${marker}: plenty of readable text for a real page. </p>`.repeat(30)}</body></html>`;
}
