import ipaddr from 'ipaddr.js';

/**
 * TARGET_ALLOWLIST: `host`, `host:port` or CIDR entries that are exempt from the non-public rule
 * (tests against local servers, intranet self-hosting). Exactly what is listed, nothing more:
 * a host entry matches that name only (not its subdomains), a host:port entry only that port,
 * a CIDR entry only addresses inside it.
 */
export class TargetAllowlist {
  private readonly hosts: Array<{ host: string; port: number | null }> = [];
  private readonly ranges: Array<[ipaddr.IPv4 | ipaddr.IPv6, number]> = [];

  constructor(entries: string[]) {
    for (const raw of entries) {
      const entry = raw.trim().toLowerCase();
      if (!entry) continue;
      if (entry.includes('/')) {
        this.ranges.push(ipaddr.parseCIDR(entry));
        continue;
      }
      const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(entry);
      if (bracketed) {
        this.hosts.push({ host: bracketed[1], port: bracketed[2] ? Number(bracketed[2]) : null });
        continue;
      }
      const colon = entry.lastIndexOf(':');
      if (colon > 0 && entry.indexOf(':') === colon && /^\d+$/.test(entry.slice(colon + 1))) {
        this.hosts.push({ host: normalizeHost(entry.slice(0, colon)), port: Number(entry.slice(colon + 1)) });
      } else {
        this.hosts.push({ host: normalizeHost(entry), port: null });
      }
    }
  }

  allowsHost(host: string, port: number): boolean {
    const normalized = normalizeHost(host);
    return this.hosts.some((h) => h.host === normalized && (h.port === null || h.port === port));
  }

  allowsAddress(address: string): boolean {
    let parsed: ipaddr.IPv4 | ipaddr.IPv6;
    try {
      parsed = ipaddr.process(address.replace(/^\[|\]$/g, ''));
    } catch {
      return false;
    }
    return this.ranges.some(([range, bits]) => parsed.kind() === range.kind() && parsed.match(range, bits));
  }
}

export function normalizeHost(host: string): string {
  return host
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .replace(/\.+$/, '');
}
