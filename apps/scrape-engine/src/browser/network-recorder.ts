import type { CDPSession } from 'rebrowser-puppeteer-core';
import { RESOURCE_TYPES } from '@lib/contracts';
import { REFUSAL_HEADER } from './egress-filter';

/** One captured request (spec 2.6; `network_requests` of the response). */
export interface CapturedRequest {
  url: string;
  method: string;
  resource_type: string;
  /** HTTP status; 0 when no response arrived (failed, blocked or still open). */
  status: number;
  mime_type: string | null;
  request_headers: Record<string, string>;
  response_headers: Record<string, string>;
  /** Bytes received over the network (encoded). */
  size: number;
  /** From the request being sent to its last byte (or failure), ms. */
  duration: number;
  /** Response body for document, xhr and fetch requests, at most 256 KB (see body_truncated). */
  body: string | null;
  body_encoding: 'utf8' | 'base64' | null;
  body_truncated: boolean;
  /** Why the request failed (net::ERR_…), or that the SSRF guard refused it. */
  error: string | null;
}

export const BODY_CAPTURE_LIMIT = 256 * 1024;
const MAX_ENTRIES = 1000;
const BODY_TYPES = new Set(['document', 'xhr', 'fetch']);
const SPEC_TYPES = new Set<string>(RESOURCE_TYPES);

interface Pending {
  entry: CapturedRequest;
  started: number;
}

/**
 * Records a page's traffic from the DevTools Network domain — the one place that sees every kind
 * of request, WebSockets included — filtered by resource type. Bodies of documents, XHR and fetch
 * are read as soon as each finishes, before the page can go away.
 */
export class NetworkRecorder {
  private readonly pending = new Map<string, Pending>();
  private readonly done: CapturedRequest[] = [];
  private readonly bodyReads: Array<Promise<void>> = [];
  private count = 0;

  constructor(
    private readonly cdp: CDPSession,
    private readonly resourceTypes: string[] | null,
  ) {}

  async start(): Promise<void> {
    const cdp = this.cdp;
    cdp.on('Network.requestWillBeSent', (e) => {
      const type = specType(e.type);
      if (!this.wanted(type)) return;
      const previous = this.pending.get(e.requestId);
      // A redirect reuses the request id: the hop before it is complete.
      if (previous && e.redirectResponse) {
        this.fill(previous.entry, e.redirectResponse);
        this.finish(e.requestId, e.timestamp, null);
      }
      if (this.count >= MAX_ENTRIES) return;
      this.count += 1;
      this.pending.set(e.requestId, { started: e.timestamp, entry: blank(e.request.url, e.request.method, type, e.request.headers) });
    });
    cdp.on('Network.responseReceived', (e) => {
      const pending = this.pending.get(e.requestId);
      if (pending) this.fill(pending.entry, e.response);
    });
    cdp.on('Network.loadingFinished', (e) => {
      const pending = this.pending.get(e.requestId);
      if (!pending) return;
      pending.entry.size = e.encodedDataLength;
      if (BODY_TYPES.has(pending.entry.resource_type) && pending.entry.status > 0)
        this.bodyReads.push(this.readBody(e.requestId, pending.entry));
      this.finish(e.requestId, e.timestamp, null);
    });
    cdp.on('Network.loadingFailed', (e) => {
      if (this.pending.has(e.requestId))
        this.finish(e.requestId, e.timestamp, e.blockedReason ? `blocked:${e.blockedReason}` : e.errorText);
    });
    cdp.on('Network.webSocketCreated', (e) => {
      if (!this.wanted('websocket') || this.count >= MAX_ENTRIES) return;
      this.count += 1;
      this.pending.set(e.requestId, { started: Date.now() / 1000, entry: blank(e.url, 'GET', 'websocket', {}) });
    });
    cdp.on('Network.webSocketWillSendHandshakeRequest', (e) => {
      const pending = this.pending.get(e.requestId);
      if (pending) {
        pending.started = e.timestamp;
        pending.entry.request_headers = stringHeaders(e.request.headers);
      }
    });
    cdp.on('Network.webSocketHandshakeResponseReceived', (e) => {
      const pending = this.pending.get(e.requestId);
      if (pending) {
        pending.entry.status = e.response.status;
        pending.entry.response_headers = stringHeaders(e.response.headers);
      }
    });
    cdp.on('Network.webSocketClosed', (e) => this.pending.has(e.requestId) && this.finish(e.requestId, e.timestamp, null));
    cdp.on('Network.webSocketFrameError', (e) => this.pending.has(e.requestId) && this.finish(e.requestId, e.timestamp, e.errorMessage));
    await cdp.send('Network.enable', { maxResourceBufferSize: 8 * 1024 * 1024, maxTotalBufferSize: 64 * 1024 * 1024 });
  }

  /** Everything seen so far, in request order; requests still open are included as they are. */
  async entries(): Promise<CapturedRequest[]> {
    await Promise.all(this.bodyReads);
    const open = [...this.pending.values()].map((p) => p.entry);
    return [...this.done, ...open];
  }

  private wanted(type: string): boolean {
    return this.resourceTypes === null || this.resourceTypes.includes(type);
  }

  private fill(
    entry: CapturedRequest,
    response: {
      status: number;
      mimeType?: string;
      headers: Record<string, unknown>;
      requestHeaders?: Record<string, unknown>;
      encodedDataLength?: number;
    },
  ): void {
    entry.status = response.status;
    entry.mime_type = response.mimeType || null;
    entry.response_headers = stringHeaders(response.headers);
    if (response.requestHeaders) entry.request_headers = { ...entry.request_headers, ...stringHeaders(response.requestHeaders) };
    const refusal = Object.entries(response.headers).find(([name]) => name.toLowerCase() === REFUSAL_HEADER.toLowerCase());
    if (refusal) entry.error = `refused by the SSRF guard (${String(refusal[1])})`;
  }

  private finish(requestId: string, timestamp: number, error: string | null): void {
    const pending = this.pending.get(requestId);
    if (!pending) return;
    this.pending.delete(requestId);
    pending.entry.duration = Math.max(0, Math.round((timestamp - pending.started) * 1000));
    if (error && !pending.entry.error) pending.entry.error = error;
    this.done.push(pending.entry);
  }

  private async readBody(requestId: string, entry: CapturedRequest): Promise<void> {
    try {
      const { body, base64Encoded } = (await this.cdp.send('Network.getResponseBody', { requestId })) as {
        body: string;
        base64Encoded: boolean;
      };
      const raw = base64Encoded ? Buffer.from(body, 'base64') : Buffer.from(body, 'utf8');
      entry.body_truncated = raw.length > BODY_CAPTURE_LIMIT;
      const kept = raw.subarray(0, BODY_CAPTURE_LIMIT);
      const textual = !base64Encoded || /^(text\/|application\/(json|xml|javascript|[a-z.+-]*\+(json|xml)))/i.test(entry.mime_type ?? '');
      entry.body = textual ? kept.toString('utf8') : kept.toString('base64');
      entry.body_encoding = textual ? 'utf8' : 'base64';
    } catch {
      // No body (a redirect, a HEAD, or evicted from the buffer): the entry keeps body null.
    }
  }
}

function blank(url: string, method: string, type: string, headers: Record<string, unknown>): CapturedRequest {
  return {
    url,
    method,
    resource_type: type,
    status: 0,
    mime_type: null,
    request_headers: stringHeaders(headers),
    response_headers: {},
    size: 0,
    duration: 0,
    body: null,
    body_encoding: null,
    body_truncated: false,
    error: null,
  };
}

/** CDP's ResourceType ("XHR", "TextTrack", "Prefetch", …) as one of the 13 types of spec 2.6. */
export function specType(cdpType: string | undefined): string {
  const lower = (cdpType ?? 'Other').toLowerCase();
  return SPEC_TYPES.has(lower) ? lower : 'other';
}

function stringHeaders(headers: Record<string, unknown> | undefined): Record<string, string> {
  return Object.fromEntries(Object.entries(headers ?? {}).map(([k, v]) => [k, String(v)]));
}
