import { BlockList, isIP } from 'node:net';

/** True for an IP address or an `address/prefix` CIDR (IPv4 or IPv6). */
export function isValidCidr(cidr: string): boolean {
  const [addr, prefix, extra] = cidr.split('/');
  if (extra !== undefined || !addr) return false;
  const family = isIP(addr);
  if (family === 0) return false;
  if (prefix === undefined) return true;
  if (!/^\d{1,3}$/.test(prefix)) return false;
  return Number(prefix) <= (family === 4 ? 32 : 128);
}

/** Strips the IPv4-mapped IPv6 prefix that dual-stack sockets report (`::ffff:10.0.0.1`). */
export function normalizeIp(ip: string): string {
  return ip.startsWith('::ffff:') && isIP(ip.slice(7)) === 4 ? ip.slice(7) : ip;
}

/** `::ffff:a0b:c0d` (as the URL serialiser writes a mapped address) → `10.11.12.13`. */
function mappedV4(v6: string): string | undefined {
  const m = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(v6);
  if (!m) return undefined;
  const [hi, lo] = [parseInt(m[1]!, 16), parseInt(m[2]!, 16)];
  return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
}

/**
 * The one textual form of an address, or undefined when the text is not an
 * address: IPv6 as RFC 5952 writes it (lower case, longest zero run
 * compressed; `2001:DB8:0:0:0:0:0:1` → `2001:db8::1`), brackets and a port
 * removed (`[2001:db8::1]:1234`, `192.0.2.1:80`), IPv4-mapped IPv6 as IPv4.
 * IPv4 with leading zeros (`010.001.001.001`) is refused: its meaning is ambiguous.
 */
export function canonicalIp(text: string): string | undefined {
  let t = text.trim();
  const bracketed = /^\[([^\]]+)\](?::\d{1,5})?$/.exec(t);
  if (bracketed) t = bracketed[1]!;
  else if (/^[\d.]+:\d{1,5}$/.test(t)) t = t.slice(0, t.indexOf(':'));
  const family = isIP(t);
  if (family === 4) return t;
  if (family !== 6 || t.includes('%')) return undefined;
  const v6 = new URL(`http://[${t}]/`).hostname.slice(1, -1);
  return mappedV4(v6) ?? v6;
}

/**
 * The key of an address for per-address limits: IPv4 as is, IPv6 cut to its
 * first `v6Prefix` bits (default /64, one customer's network), written as
 * `2001:db8:1:2::/64` — so one host cannot take a fresh quota per address.
 */
export function addressGroup(ip: string, v6Prefix = 64): string {
  if (isIP(ip) !== 6 || v6Prefix >= 128) return ip;
  const [head = '', tail = ''] = ip.split('::');
  const h = head ? head.split(':') : [];
  const t = tail ? tail.split(':') : [];
  const groups = ip.includes('::') ? [...h, ...Array(8 - h.length - t.length).fill('0'), ...t] : h;
  const bits = groups.map((g) => parseInt(g, 16));
  for (let i = 0; i < 8; i++) {
    const keep = Math.max(0, Math.min(16, v6Prefix - i * 16));
    bits[i] = keep === 0 ? 0 : bits[i]! & ((0xffff << (16 - keep)) & 0xffff);
  }
  const net = new URL(`http://[${bits.map((b) => b.toString(16)).join(':')}]/`).hostname.slice(
    1,
    -1,
  );
  return `${net}/${v6Prefix}`;
}

/** Addresses a CidrSet remembers its answer for, at most (then it starts over). */
export const CIDR_MEMO_MAX = 1024;

/**
 * A set of CIDRs, answering "is this address inside?". BlockList.check builds a SocketAddress per call (about
 * 3 % of an instance's busy time under bench:attack, asked several times per request): answers are remembered
 * per address, up to CIDR_MEMO_MAX addresses (a flood of new addresses costs what no memo would).
 */
export class CidrSet {
  private readonly list = new BlockList();
  private readonly memo = new Map<string, boolean>();
  readonly size: number;

  constructor(cidrs: readonly string[]) {
    for (const cidr of cidrs) {
      const [addr, prefix] = cidr.split('/') as [string, string | undefined];
      const type = isIP(addr) === 6 ? 'ipv6' : 'ipv4';
      if (prefix === undefined) this.list.addAddress(addr, type);
      else this.list.addSubnet(addr, Number(prefix), type);
    }
    this.size = cidrs.length;
  }

  has(ip: string): boolean {
    if (this.size === 0) return false;
    const known = this.memo.get(ip);
    if (known !== undefined) return known;
    const addr = normalizeIp(ip);
    const family = isIP(addr);
    const inside = family !== 0 && this.list.check(addr, family === 6 ? 'ipv6' : 'ipv4');
    if (this.memo.size >= CIDR_MEMO_MAX) this.memo.clear();
    this.memo.set(ip, inside);
    return inside;
  }

  /** Addresses remembered now (for tests of the bound). */
  get remembered(): number {
    return this.memo.size;
  }
}
