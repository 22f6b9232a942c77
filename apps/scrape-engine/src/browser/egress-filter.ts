import { importEsm } from '@lib/runtime';
import { pinnedLookup, TargetBlockedError, type TargetGuard } from '@lib/target-guard';
import type { RequestError as RequestErrorType, Server as ServerType } from 'proxy-chain';

type ProxyChain = { Server: typeof ServerType; RequestError: typeof RequestErrorType };
let proxyChain: Promise<ProxyChain> | null = null;

/** A request the filter refused, for the response (network capture, guidance). */
export interface RefusedRequest {
  host: string;
  port: number;
  reason: string;
  message: string;
}

/** Header on the filter's own refusal, so a refused navigation is told apart from the site's 403. */
export const REFUSAL_HEADER = 'X-Egress-Refused';

/**
 * One browser context's way out: a local HTTP proxy that is the context's only route to the
 * network. Every connection the page makes — navigations, redirects, subresources, iframes,
 * fetch/XHR, workers and service workers, WebSockets — arrives here as a proxied request or a
 * CONNECT, is vetted by the same TargetGuard as simple mode, and is connected to the vetted
 * addresses (pinned lookup: no second DNS answer, so no rebinding). With a proxy from the
 * rotation, the request is chained to it (the proxy then resolves the name, as in simple mode).
 */
export class EgressSession {
  readonly refused: RefusedRequest[] = [];
  /** Time spent vetting and opening upstream connections, ms (timings.proxy_ms). */
  proxyMs = 0;
  /** The PROXY_POOL proxy this context's traffic is chained to (null: direct, pinned). */
  private upstreamProxyUrl: string | null = null;

  private constructor(
    private readonly server: ServerType,
    readonly proxyServer: string,
  ) {}

  static async open(guard: TargetGuard, upstreamProxyUrl: string | null = null): Promise<EgressSession> {
    // proxy-chain is ESM-only; loaded once.
    proxyChain ??= importEsm<ProxyChain>('proxy-chain');
    const { Server, RequestError } = await proxyChain;
    let session: EgressSession | null = null;
    const server = new Server({
      port: 0,
      host: '127.0.0.1',
      verbose: false,
      prepareRequestFunction: async ({ hostname, port, isHttp }) => {
        const started = performance.now();
        const host = hostname.includes(':') && !hostname.startsWith('[') ? `[${hostname}]` : hostname;
        try {
          const target = await guard.vet(`${isHttp || port !== 443 ? 'http' : 'https'}://${host}:${port}/`);
          // Through an upstream proxy the proxy connects (and resolves); directly, only the vetted addresses.
          const upstream = session?.upstreamProxyUrl ?? null;
          return upstream ? { upstreamProxyUrl: upstream } : { dnsLookup: pinnedLookup(target) };
        } catch (error) {
          const reason = error instanceof TargetBlockedError ? error.reason : 'guard_error';
          const message = error instanceof Error ? error.message : String(error);
          session?.refused.push({ host: hostname, port, reason, message });
          throw new RequestError(`Refused by the SSRF guard: ${message}`, 403, { [REFUSAL_HEADER]: reason, 'Content-Type': 'text/plain' });
        } finally {
          if (session) session.proxyMs += performance.now() - started;
        }
      },
    });
    // Chromium drops tunnels at will; a reset socket is not an error of ours.
    server.on('requestFailed', () => undefined);
    await server.listen();
    session = new EgressSession(server, `http://127.0.0.1:${server.port}`);
    session.upstreamProxyUrl = upstreamProxyUrl;
    return session;
  }

  /** Chains this context's traffic to `upstreamProxyUrl` from now on (a context prepared ahead). */
  route(upstreamProxyUrl: string | null): void {
    this.upstreamProxyUrl = upstreamProxyUrl;
  }

  /** Back to a fresh session's counters, for a context prepared before its request came. */
  resetCounters(): void {
    this.refused.length = 0;
    this.proxyMs = 0;
  }

  async close(): Promise<void> {
    await this.server.close(true);
  }
}
