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

/** A set of CIDRs, answering "is this address inside?" without allocations per call. */
export class CidrSet {
  private readonly list = new BlockList();
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
    const addr = normalizeIp(ip);
    const family = isIP(addr);
    if (family === 0) return false;
    return this.list.check(addr, family === 6 ? 'ipv6' : 'ipv4');
  }
}
