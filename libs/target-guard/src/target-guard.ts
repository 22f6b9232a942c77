import dns from 'node:dns';
import os from 'node:os';
import { describeAddress, isIpLiteral } from './address-policy';
import { type TargetAllowlist, normalizeHost } from './target-allowlist';
import { TargetBlockedError, TargetUrlInvalidError } from './target-guard.errors';

/** Resolves a host name to every address it has (adapter, so tests can answer with any address). */
export interface TargetResolver {
  resolve(hostname: string): Promise<string[]>;
}

export const systemResolver: TargetResolver = {
  async resolve(hostname) {
    const answers = await dns.promises.lookup(hostname, { all: true, verbatim: true });
    return answers.map((a) => a.address);
  },
};

/** A target that passed every check, with the addresses a connection may use (pin them). */
export interface VettedTarget {
  url: URL;
  hostname: string;
  port: number;
  addresses: string[];
  /** True when TARGET_ALLOWLIST exempted it. */
  allowlisted: boolean;
}

export const ALLOWED_PORT_RULE = 'ports 80, 443 and 1024-65535';

// Names that denote the inside of a network or of this machine, whatever they resolve to.
const INTERNAL_SUFFIXES = ['.localhost', '.local', '.internal', '.svc', '.cluster.local', '.home.arpa', '.lan', '.intranet', '.corp'];

/**
 * Decides whether a URL is a public http(s) target, and which addresses to connect to. Parsing is
 * the WHATWG URL parser's (so the host checked is the host connected to, whatever userinfo or
 * encoding tricks the URL holds); names are resolved here and EVERY answer must be public; the
 * caller then connects to those exact addresses (no second lookup, so DNS rebinding cannot swap
 * them). Redirects must be vetted again, hop by hop.
 */
export class TargetGuard {
  private readonly ownHostnames: Set<string>;

  constructor(
    private readonly allowlist: TargetAllowlist,
    private readonly resolver: TargetResolver = systemResolver,
    ownHostnames: string[] = [os.hostname()],
  ) {
    this.ownHostnames = new Set(ownHostnames.map(normalizeHost));
  }

  async vet(rawUrl: string): Promise<VettedTarget> {
    const url = this.parse(rawUrl);
    const port = url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
    const hostname = normalizeHost(url.hostname);
    const allowlisted = this.allowlist.allowsHost(hostname, port);
    if (!allowlisted && port !== 80 && port !== 443 && port < 1024) {
      throw new TargetBlockedError('invalid_port', `Port ${port} is not allowed; targets may use ${ALLOWED_PORT_RULE}.`);
    }
    if (isIpLiteral(hostname)) {
      this.checkAddresses(hostname, [hostname], allowlisted);
      return { url, hostname, port, addresses: [hostname], allowlisted };
    }
    if (!allowlisted) this.checkHostname(hostname);
    let addresses: string[];
    try {
      addresses = await this.resolver.resolve(hostname);
    } catch (error) {
      throw new TargetBlockedError(
        'dns_failed',
        `The host ${hostname} could not be resolved (${(error as NodeJS.ErrnoException).code ?? 'lookup failed'}).`,
      );
    }
    if (addresses.length === 0) throw new TargetBlockedError('dns_failed', `The host ${hostname} has no addresses.`);
    this.checkAddresses(hostname, addresses, allowlisted);
    return { url, hostname, port, addresses, allowlisted };
  }

  private parse(rawUrl: string): URL {
    if (typeof rawUrl !== 'string' || rawUrl.length === 0 || rawUrl.length > 8192) {
      throw new TargetUrlInvalidError('malformed_url', 'The URL must be a non-empty string of at most 8192 characters.');
    }
    let url: URL;
    try {
      url = new URL(rawUrl);
    } catch {
      throw new TargetUrlInvalidError('malformed_url', `"${rawUrl.slice(0, 200)}" is not a valid absolute URL.`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new TargetUrlInvalidError(
        'invalid_protocol',
        `Only http and https URLs can be scraped (got ${url.protocol.replace(/:$/, '')}).`,
      );
    }
    if (!url.hostname) throw new TargetUrlInvalidError('malformed_url', 'The URL has no host.');
    return url;
  }

  private checkHostname(hostname: string): void {
    const internal =
      hostname === 'localhost' ||
      INTERNAL_SUFFIXES.some((suffix) => hostname.endsWith(suffix)) ||
      !hostname.includes('.') ||
      this.ownHostnames.has(hostname);
    if (internal)
      throw new TargetBlockedError(
        'blocked_hostname',
        `The host ${hostname} names an internal or local machine; only public hosts can be scraped.`,
      );
  }

  private checkAddresses(hostname: string, addresses: string[], allowlisted: boolean): void {
    if (allowlisted) return;
    for (const address of addresses) {
      if (this.allowlist.allowsAddress(address)) continue;
      const { public: isPublic, range } = describeAddress(address);
      if (!isPublic) {
        const via = address === hostname ? '' : ` (${hostname} resolves to ${address})`;
        throw new TargetBlockedError('private_ip', `The target address is not public${via}: ${range} addresses are never fetched.`);
      }
    }
  }
}

/**
 * A `dns.lookup`-compatible function that answers only with the vetted addresses for the vetted
 * host, so the HTTP client connects exactly where the guard looked (no DNS rebinding window).
 */
export function pinnedLookup(target: VettedTarget): typeof dns.lookup {
  const lookup = (hostname: string, options: unknown, callback?: unknown) => {
    const cb = (typeof options === 'function' ? options : callback) as (
      err: NodeJS.ErrnoException | null,
      address: unknown,
      family?: number,
    ) => void;
    const opts = (typeof options === 'object' && options !== null ? options : {}) as { all?: boolean; family?: number };
    if (normalizeHost(hostname) !== target.hostname) {
      const error: NodeJS.ErrnoException = new Error(
        `lookup of ${hostname} refused: only the vetted host ${target.hostname} may be resolved`,
      );
      error.code = 'ENOTFOUND';
      process.nextTick(cb, error, undefined);
      return;
    }
    const entries = target.addresses.map((address) => ({
      address: address.replace(/^\[|\]$/g, ''),
      family: address.includes(':') ? 6 : 4,
    }));
    const wanted = opts.family === 4 || opts.family === 6 ? entries.filter((e) => e.family === opts.family) : entries;
    if (opts.all) process.nextTick(cb, null, wanted);
    else if (wanted.length === 0) {
      const error: NodeJS.ErrnoException = new Error(`no ${opts.family === 6 ? 'IPv6' : 'IPv4'} address for ${hostname}`);
      error.code = 'ENOTFOUND';
      process.nextTick(cb, error, undefined);
    } else process.nextTick(cb, null, wanted[0].address, wanted[0].family);
  };
  return lookup as unknown as typeof dns.lookup;
}
