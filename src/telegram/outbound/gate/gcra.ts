import type { SendBucket } from '../outbound.settings.js';

/**
 * GCRA slot reservation, as lua/telegram_send_charge.lua does it (one
 * theoretical arrival time, TAT, per key). Milliseconds. A send of `cost`
 * fits a bucket of interval T and burst b at `TAT + (cost − b)·T` at the
 * earliest; charging it at `slot` moves the TAT to `max(TAT, slot) + cost·T`.
 * With burst 1 the sends are exactly T apart, whoever reserves them.
 */

/** Earliest time a send of `cost` fits the bucket (≥ now); `perSecond` overrides the bucket's rate (the bot's adaptive rate after a 429). */
export function earliest(
  b: SendBucket,
  tat: number | undefined,
  cost: number,
  now: number,
  perSecond = b.perSecond,
): number {
  const t = 1000 / perSecond;
  return tat === undefined ? now : Math.max(now, tat + (cost - b.burst) * t);
}

/** The bucket's TAT once a send of `cost` is charged at `slot`. */
export function charged(
  b: SendBucket,
  tat: number | undefined,
  cost: number,
  slot: number,
  perSecond = b.perSecond,
): number {
  return Math.max(tat ?? slot, slot) + (cost * 1000) / perSecond;
}

/** Milliseconds from `now` until one more token fits after a charge that left the TAT at `tat`. */
export function nextFitMs(b: SendBucket, tat: number, now: number): number {
  return Math.max(0, Math.ceil(earliest(b, tat, 1, now) - now));
}
