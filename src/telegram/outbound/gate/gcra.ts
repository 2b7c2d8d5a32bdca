import type { SendBucket } from '../outbound.settings.js';

/**
 * GCRA, as the rate-limit lock stores it (one theoretical arrival time per
 * key): the same arithmetic as lua/telegram_send_charge.lua. Milliseconds.
 */
export interface GcraStep {
  /** New TAT when it fits. */
  tat?: number;
  /** Milliseconds until it fits (0 when it does). */
  waitMs: number;
}

export function gcra(b: SendBucket, tat: number | undefined, cost: number, now: number): GcraStep {
  const t = 1000 / b.perSecond;
  const tau = b.burst * t;
  const base = Math.max(tat ?? now, now);
  const next = base + cost * t;
  if (next - now <= tau + 1e-9) return { tat: next, waitMs: 0 };
  // A cost above the burst fits only into an empty bucket.
  if (cost * t > tau) return { waitMs: Math.max(1, base - now) };
  return { waitMs: Math.ceil(next - tau - now) };
}

/** Milliseconds until one more token fits after a charge that left the TAT at `tat`. */
export function nextFitMs(b: SendBucket, tat: number, now: number): number {
  const t = 1000 / b.perSecond;
  return Math.max(0, Math.ceil(tat + t - b.burst * t - now));
}
