import ipaddr from 'ipaddr.js';

/**
 * Whether an IP address is a public unicast address. Everything else — loopback, private,
 * link-local (cloud metadata lives there), CGNAT, multicast, broadcast, unspecified, reserved,
 * benchmarking, documentation, ULA, IPv4-mapped/-compatible IPv6 of a non-public IPv4, NAT64,
 * 6to4 and Teredo — is not. Ranges come from ipaddr.js; only the cases it names differently from
 * what Linux does are handled here.
 */
export function describeAddress(address: string): { public: boolean; range: string } {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(address.replace(/^\[|\]$/g, ''));
  } catch {
    return { public: false, range: 'unparseable' };
  }
  if (parsed.kind() === 'ipv6') {
    const v6 = parsed as ipaddr.IPv6;
    // ::ffff:a.b.c.d reaches a.b.c.d. ::a.b.c.d (the deprecated IPv4-compatible form, ::/96) is
    // called public by some ipaddr.js versions; treat it as the IPv4 it embeds, refusing ::/128 and ::1.
    const parts = v6.parts;
    const embedsV4 = v6.isIPv4MappedAddress() || (parts.slice(0, 6).every((p) => p === 0) && (parts[6] !== 0 || parts[7] > 1));
    if (embedsV4) {
      const v4 = ipaddr.IPv4.parse(`${parts[6] >> 8}.${parts[6] & 0xff}.${parts[7] >> 8}.${parts[7] & 0xff}`);
      const inner = describeAddress(v4.toString());
      return { public: inner.public, range: `ipv4-in-ipv6:${inner.range}` };
    }
  }
  const range = parsed.range();
  if (range !== 'unicast') return { public: false, range };
  if (parsed.kind() === 'ipv4' && (parsed as ipaddr.IPv4).octets[0] === 0) return { public: false, range: 'this-network' };
  return { public: true, range };
}

export function isIpLiteral(host: string): boolean {
  return ipaddr.isValid(host.replace(/^\[|\]$/g, ''));
}
