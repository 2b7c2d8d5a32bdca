import { DEPARTURE_KEEP_MS } from '../gate/send-gate.store.js';
import type { Lease } from '../queue/outbound-queue.store.js';
import type { AttemptParts } from './attempt-parts.js';

/** Clocks of the hosts (a lease's end is one worker's clock, a departure's Redis's) may differ by this much. */
const CLOCK_SKEW_MS = 60_000;

/**
 * Whether the send of a reclaimed lease's job provably never left: none of its lost leases (workers that
 * died holding it) has a departure record at the gate, and every one of them ended recently enough that
 * its record, had it left, would still be kept (DEPARTURE_KEEP_MS past the lease). A send only leaves while
 * its lease outlives its request timeout (departure.ts), so a lease without a record never sends later.
 * Anything else — a record, a lease ended too long ago, a reclaim with no lease noted, a failed read — is
 * "may have left": the `ambiguous` policy decides.
 */
export async function neverLeft(p: AttemptParts, lease: Lease): Promise<boolean> {
  const now = p.clock.now();
  if (lease.lost.length === 0) return false;
  if (lease.lost.some((l) => now > l.ended + DEPARTURE_KEEP_MS - CLOCK_SKEW_MS)) return false;
  try {
    const bots = p.routing.ids();
    for (const l of lease.lost) if (await p.gate.departed(bots, l.token)) return false;
    return true;
  } catch {
    return false;
  }
}
