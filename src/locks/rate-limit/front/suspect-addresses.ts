import { BoundedMap } from '../../../common/bounded-map.js';

/** How long an address stays suspect after the last 401 this instance answered it, in milliseconds. */
export const SUSPECT_MS = 60_000;
/** Most suspect addresses held (the least recently refused go first: a dropped one is judged as any other). */
const MAX_SUSPECTS = 10_000;

/**
 * Addresses this instance answered 401 lately (a signature that failed, a replayed nonce, an unknown app):
 * under own-health pressure the front door sheds their requests first (docs/quotas.md#shed-first). Per
 * instance, in memory, bounded; the key is the address as the per-address rules know it (an IPv6 network).
 */
export class SuspectAddresses {
  private readonly until = new BoundedMap<string, number>({
    store: 'suspect_addresses',
    maxEntries: MAX_SUSPECTS,
    whenFull: 'evict-oldest',
    expired: (until, now) => until <= now,
  });

  mark(address: string, now: number): void {
    this.until.set(address, now + SUSPECT_MS, now);
  }

  has(address: string, now: number): boolean {
    const until = this.until.get(address);
    return until !== undefined && until > now;
  }

  get size(): number {
    return this.until.size;
  }
}
