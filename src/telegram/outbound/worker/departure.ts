import { setTimeout as sleep } from 'node:timers/promises';
import { DEPARTURE_KEEP_MS } from '../gate/send-gate.store.js';
import type { Lease } from '../queue/outbound-queue.store.js';
import type { AttemptParts } from './attempt-parts.js';

/**
 * At the reserved slot: until when the send must not leave (its bot cools down — known here from this
 * worker's own 429s at once, else from the gate, which other workers' 429s set — or was taken out of
 * rotation), or undefined: go.
 * A full departure window (sends late on their slots bunching) is waited out here, up to `holdUntil`.
 */
export async function departure(
  p: AttemptParts,
  bot: string,
  perSecond: number,
  lease: Lease,
  holdUntil: number,
) {
  const s = p.settings;
  for (;;) {
    // Only while the lease outlives the call: a send of a lease that may be reclaimed never leaves.
    if (p.clock.now() + s.requestTimeoutMs >= lease.expires) return p.clock.now();
    const local = p.pacing.cooling(bot);
    if (local !== undefined) return local;
    // Out of rotation while this send waited for its slot: it goes back and is routed again.
    if (p.health.out(bot)) return p.clock.now();
    const keep = s.leaseMs + DEPARTURE_KEEP_MS;
    const d = await p.gate.depart(bot, lease.token, s.departWindowMs, s.departMax, keep);
    // A 429 this worker read while the check was in Redis: the send does not leave (its departure stays
    // recorded, a harmless extra count in the window).
    const late = p.pacing.cooling(bot);
    if (late !== undefined) return late;
    if (d.kind === 'go') {
      p.pacing.departed(bot);
      return undefined;
    }
    if (d.kind === 'cool') {
      p.pacing.cooled(bot, d.until, 'gate');
      return d.until;
    }
    const now = p.clock.now();
    // The sends of this worker waiting for the window try again one bot interval apart, in turn, not all
    // at the instant its oldest departure leaves it (only one would go: the others' checks were for nothing).
    const at = p.pacing.line(
      `${bot}|depart`,
      now + d.ms,
      1000 / perSecond,
      holdUntil + s.departWindowMs,
    );
    if (at === undefined) return now + d.ms;
    await sleep(Math.max(1, at - now));
  }
}

/**
 * The departure check of a reserved send (see departure), handing its slot back at the gate whenever the send
 * does not leave: at a stop (returned), or when the check failed (Redis down or slow: rethrown), so that its
 * in-flight mark goes now, not when it lapses (`inflightMs`, the request timeout past the horizon).
 */
export async function departOrRelease(
  p: AttemptParts,
  bot: string,
  perSecond: number,
  lease: Lease,
  holdUntil: number,
): Promise<number | undefined> {
  const release = () => p.gate.release(bot, lease.token).catch(() => undefined);
  const stop = await departure(p, bot, perSecond, lease, holdUntil).catch(async (e: unknown) => {
    await release();
    throw e;
  });
  if (stop !== undefined) await release();
  return stop;
}
