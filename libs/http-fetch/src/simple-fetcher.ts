import { importEsm } from '@lib/runtime';
import { pinnedLookup, TargetBlockedError, type TargetGuard, type VettedTarget } from '@lib/target-guard';
import { HeaderGenerator } from 'header-generator';
import { acceptEncodingWithin, decodeBody } from './content-decoding';
import {
  BodyTooLarge,
  ConnectionFailure,
  DnsFailure,
  type FetchFailure,
  FetchTimeout,
  ProxyFailure,
  RedirectBlocked,
  TlsFailure,
  TooManyRedirects,
  UnclassifiedFetchFailure,
  UndecodableBody,
} from './fetch-failures';

export type WindowSize = 'desktop' | 'mobile' | 'any';

export interface SimpleFetchRequest {
  url: string;
  method?: 'get' | 'post';
  /** POST body, sent as JSON or as a form. */
  payload?: Record<string, unknown> | null;
  contentType?: 'json' | 'form';
  headers?: Record<string, string> | null;
  cookies?: Record<string, string> | null;
  language?: string;
  windowSize?: WindowSize;
  /** http://user:pass@host:port, or null for a direct connection. */
  proxyUrl?: string | null;
  connectTimeoutMs?: number;
  totalTimeoutMs?: number;
  maxBodyBytes?: number;
  /**
   * The cap for a response whose Content-Type declares a document (PDF, Office, OpenDocument,
   * EPUB, RTF): documents are larger than pages. Default: maxBodyBytes.
   */
  maxDocumentBytes?: number;
  maxRedirects?: number;
  /**
   * false: a 3xx is returned as it is (its Location in `headers`) for the caller to vet and follow
   * itself — discovery checks robots.txt and scope on every hop. Default true.
   */
  followRedirects?: boolean;
}

export interface FetchedResponse {
  url: string;
  statusCode: number;
  statusMessage: string;
  headers: Record<string, string | string[] | undefined>;
  contentType: string | null;
  body: Buffer;
  /** Decoded text for textual responses; null for binary ones. */
  text: string | null;
  redirects: string[];
  timings: { proxy_ms: number; navigation_ms: number; total_ms: number };
}

/** Media types that declare a document (the engine reads them, decision 0039): their own byte cap. */
const DOCUMENT_MEDIA_TYPE =
  /^application\/(pdf|x-pdf|msword|rtf|epub\+zip|vnd\.openxmlformats-officedocument\.[a-z.]+|vnd\.oasis\.opendocument\.[a-z.]+|vnd\.ms-(excel|powerpoint))$|^text\/rtf$/;

/** The byte cap of a response with this Content-Type. */
function capOf(settings: { maxBodyBytes: number; maxDocumentBytes?: number }, contentType: string | string[] | undefined): number {
  const declared = (Array.isArray(contentType) ? contentType[0] : contentType)?.split(';')[0]?.trim().toLowerCase() ?? '';
  return settings.maxDocumentBytes !== undefined && DOCUMENT_MEDIA_TYPE.test(declared) ? settings.maxDocumentBytes : settings.maxBodyBytes;
}

export const FETCH_DEFAULTS = { connectTimeoutMs: 10_000, totalTimeoutMs: 30_000, maxBodyBytes: 10 * 1024 * 1024, maxRedirects: 10 };

type GotScraping = (
  url: string,
  options: Record<string, unknown>,
) => Promise<{ statusCode: number; statusMessage?: string; headers: Record<string, string | string[] | undefined>; rawBody: Buffer }> & {
  on(event: 'downloadProgress', fn: (p: { transferred: number }) => void): void;
  on(event: 'request', fn: (request: import('node:http').ClientRequest) => void): void;
  cancel(): void;
};

/**
 * Plain-HTTP fetching with got-scraping: browser-like headers and TLS, a proxy when given, and the
 * SSRF guard on every hop. Every connection goes to the addresses the guard vetted (pinned
 * lookup); redirects are followed here, one vetted hop at a time. HTTP/2 negotiation and
 * got-scraping's own header hook are off because both open connections with their own DNS lookup,
 * outside the pin.
 */
export class SimpleFetcher {
  private gotScraping: GotScraping | null = null;
  private readonly headerGenerator = new HeaderGenerator({
    browsers: [
      { name: 'chrome', minVersion: 120 },
      { name: 'firefox', minVersion: 120 },
      { name: 'safari', minVersion: 16 },
    ],
    httpVersion: '1',
  });

  constructor(private readonly guard: TargetGuard) {}

  async fetch(request: SimpleFetchRequest, firstHop?: VettedTarget): Promise<FetchedResponse> {
    const got = await this.client();
    const settings = { ...FETCH_DEFAULTS, ...definedOnly(request) };
    const started = performance.now();
    const deadline = started + settings.totalTimeoutMs;
    const redirects: string[] = [];
    const browserHeaders = this.browserHeaders(request);
    let method: 'GET' | 'POST' = request.method === 'post' ? 'POST' : 'GET';
    let url = request.url;
    let target = firstHop ?? (await this.guard.vet(url));
    for (let hop = 0; ; hop += 1) {
      const remaining = deadline - performance.now();
      if (remaining <= 0) throw new FetchTimeout(`The fetch did not finish within ${settings.totalTimeoutMs} ms.`, this.timings(started));
      const response = await this.fetchOnce(got, target, method, request, settings, browserHeaders, remaining, started);
      const location = response.headers.location;
      const follow = request.followRedirects !== false;
      if (follow && response.statusCode >= 300 && response.statusCode < 400 && typeof location === 'string' && location) {
        if (hop >= settings.maxRedirects)
          throw new TooManyRedirects(`More than ${settings.maxRedirects} redirects.`, this.timings(started));
        url = new URL(location, url).toString();
        redirects.push(url);
        // 303 always, and 301/302 after a POST, continue as GET (what browsers do).
        if (response.statusCode === 303 || (method === 'POST' && (response.statusCode === 301 || response.statusCode === 302)))
          method = 'GET';
        try {
          target = await this.guard.vet(url);
        } catch (error) {
          if (error instanceof TargetBlockedError)
            throw new RedirectBlocked(`A redirect pointed to a blocked target: ${error.message}`, error.reason, this.timings(started));
          throw error;
        }
        continue;
      }
      let body: Buffer;
      try {
        body = await decodeBody(response.rawBody, response.headers['content-encoding'], capOf(settings, response.headers['content-type']));
      } catch (error) {
        // The same failure, with the timings up to it (spec 2.7: present on errors too).
        if (error instanceof BodyTooLarge) throw new BodyTooLarge(error.message, this.timings(started));
        if (error instanceof UndecodableBody) throw new UndecodableBody(error.message, this.timings(started));
        throw error;
      }
      const contentType = typeof response.headers['content-type'] === 'string' ? response.headers['content-type'] : null;
      const text = isTextual(contentType, body) ? decode(body, contentType) : null;
      const total = performance.now() - started;
      return {
        url,
        statusCode: response.statusCode,
        statusMessage: response.statusMessage ?? '',
        headers: response.headers,
        contentType,
        body,
        text,
        redirects,
        timings: { proxy_ms: 0, navigation_ms: round(total), total_ms: round(total) },
      };
    }
  }

  private async fetchOnce(
    got: GotScraping,
    target: VettedTarget,
    method: 'GET' | 'POST',
    request: SimpleFetchRequest,
    settings: typeof FETCH_DEFAULTS,
    browserHeaders: Record<string, string>,
    remainingMs: number,
    started: number,
  ) {
    const headers: Record<string, string> = { ...browserHeaders, ...lowerKeys(request.headers ?? {}) };
    if (request.cookies && Object.keys(request.cookies).length > 0) {
      headers.cookie = Object.entries(request.cookies)
        .map(([k, v]) => `${k}=${v}`)
        .join('; ');
    }
    const body: Record<string, unknown> = {};
    if (method === 'POST' && request.payload) {
      if (request.contentType === 'form') body.form = request.payload;
      else body.json = request.payload;
    }
    const call = got(target.url.toString(), {
      method,
      headers,
      ...body,
      // Through a proxy, the proxy resolves the target (vetted here first; see docs/operations.md).
      dnsLookup: request.proxyUrl ? undefined : pinnedLookup(target),
      http2: false,
      useHeaderGenerator: false,
      proxyUrl: request.proxyUrl ?? undefined,
      followRedirect: false,
      throwHttpErrors: false,
      retry: { limit: 0 },
      // Decoded by decodeBody, within the byte budget: got's limit below counts wire bytes only.
      decompress: false,
      responseType: 'buffer',
      timeout: { connect: Math.min(settings.connectTimeoutMs, remainingMs), request: remainingMs },
      https: { rejectUnauthorized: true },
    });
    let tooLarge: string | null = null;
    let cap = settings.maxBodyBytes;
    const refuse = (why: string) => {
      tooLarge = why;
      call.cancel();
    };
    // Headers first: a declared length past the cap is refused before its body is read, not after the
    // cap's worth. (got's own 'response' event comes once the body is in; the socket's comes first.)
    call.on('request', (request) =>
      request.once('response', (response) => {
        cap = capOf(settings, response.headers['content-type']);
        const declared = Number(response.headers['content-length']);
        if (declared > cap) refuse(`The response declares ${declared} bytes (Content-Length), over the ${cap}-byte cap.`);
      }),
    );
    call.on('downloadProgress', (progress) => {
      if (!tooLarge && progress.transferred > cap) refuse(`The response body exceeds ${cap} bytes.`);
    });
    try {
      return await call;
    } catch (error) {
      if (tooLarge) throw new BodyTooLarge(tooLarge, this.timings(started));
      throw classify(error, Boolean(request.proxyUrl), this.timings(started));
    }
  }

  private browserHeaders(request: SimpleFetchRequest): Record<string, string> {
    const devices = request.windowSize === 'mobile' ? ['mobile'] : request.windowSize === 'any' ? ['desktop', 'mobile'] : ['desktop'];
    const generated = this.headerGenerator.getHeaders({
      devices: devices as never,
      locales: request.language ? [request.language] : ['en-US'],
    });
    const headers = lowerKeys(generated);
    if (headers['accept-encoding']) headers['accept-encoding'] = acceptEncodingWithin(headers['accept-encoding']);
    if (request.language) headers['accept-language'] = acceptLanguageFor(request.language);
    return headers;
  }

  private timings(started: number): Record<string, number> {
    return { total_ms: round(performance.now() - started) };
  }

  private async client(): Promise<GotScraping> {
    this.gotScraping ??= (await importEsm<{ gotScraping: GotScraping }>('got-scraping')).gotScraping;
    return this.gotScraping;
  }
}

/** `de-DE` → `de-DE,de;q=0.9`, what a browser configured for that language sends. */
export function acceptLanguageFor(language: string): string {
  const primary = language.split('-')[0];
  return primary && primary !== language ? `${language},${primary};q=0.9` : language;
}

function classify(error: unknown, viaProxy: boolean, timings: Record<string, number>): FetchFailure {
  const e = error as { code?: string; name?: string; message?: string };
  const code = e.code ?? '';
  const message = e.message ?? String(error);
  if (e.name === 'TimeoutError' || code === 'ETIMEDOUT')
    return new FetchTimeout(`The target did not answer in time (${message}).`, timings);
  if (viaProxy && (/proxy/i.test(message) || code === 'ERR_PROXY')) return new ProxyFailure(`The proxy failed: ${message}`, timings);
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return new DnsFailure(`The host could not be resolved (${code}).`, timings);
  if (['ECONNREFUSED', 'ECONNRESET', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE', 'ECONNABORTED'].includes(code)) {
    return viaProxy
      ? new ProxyFailure(`The connection through the proxy failed (${code}).`, timings)
      : new ConnectionFailure(`The connection failed (${code}).`, timings);
  }
  if (/CERT|SSL|TLS|self.signed/i.test(code) || /certificate|ssl|tls/i.test(message))
    return new TlsFailure(`TLS failed: ${message}`, timings);
  return new UnclassifiedFetchFailure(`The fetch failed: ${message}`, timings);
}

function isTextual(contentType: string | null, body: Buffer): boolean {
  if (contentType)
    return /^(text\/|application\/(xhtml\+xml|xml|json|ld\+json|javascript|rss\+xml|atom\+xml)|image\/svg\+xml)/i.test(contentType.trim());
  return !body.subarray(0, 1024).includes(0);
}

function decode(body: Buffer, contentType: string | null): string {
  const charset =
    /charset=["']?([\w-]+)/i.exec(contentType ?? '')?.[1] ??
    /<meta[^>]+charset=["']?([\w-]+)/i.exec(body.subarray(0, 2048).toString('latin1'))?.[1] ??
    'utf-8';
  try {
    return new TextDecoder(charset.toLowerCase()).decode(body);
  } catch {
    return new TextDecoder('utf-8').decode(body);
  }
}

function lowerKeys(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

function round(ms: number): number {
  return Math.round(ms * 10) / 10;
}
