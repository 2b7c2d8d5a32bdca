import type { Clock } from '../../common/clock.js';

/** Milliseconds an upstream is skipped after a 429 without a usable Retry-After. */
export const DEFAULT_COOLDOWN_MS = 5_000;
/** Longest skip a Retry-After can ask for, in milliseconds (an upstream cannot take itself out for hours). */
export const MAX_COOLDOWN_MS = 300_000;

/**
 * Milliseconds a Retry-After value asks for: whole seconds or an HTTP date
 * (RFC 9110 §10.2.3), capped at {@link MAX_COOLDOWN_MS}; the default when
 * absent or unreadable.
 */
export function retryAfterMs(value: string | undefined, now: number): number {
  let ms = Number.NaN;
  if (value !== undefined && /^\d{1,9}$/.test(value.trim())) ms = Number(value.trim()) * 1000;
  else if (value !== undefined) ms = Date.parse(value) - now;
  if (!Number.isFinite(ms) || ms < 0) return DEFAULT_COOLDOWN_MS;
  return Math.min(ms, MAX_COOLDOWN_MS);
}

/**
 * Upstreams answering 429, skipped by every call until their Retry-After
 * has passed. Per instance, and shared by every app by design: the upstream's
 * quota is one for all of them (docs/inference.md#upstreams-per-model).
 * Bounded by the number of configured upstreams.
 */
export class UpstreamCooldowns {
  private readonly until = new Map<string, number>();

  constructor(private readonly clock: Clock) {}

  /** The upstream answered 429: skip it for `ms` (a later end wins over an earlier one). */
  coolDown(upstream: string, ms: number): void {
    const end = this.clock.now() + ms;
    if ((this.until.get(upstream) ?? 0) < end) this.until.set(upstream, end);
  }

  /** Milliseconds until the upstream may be called again; 0 when it may now. */
  remainingMs(upstream: string): number {
    const end = this.until.get(upstream);
    if (end === undefined) return 0;
    const left = end - this.clock.now();
    if (left > 0) return left;
    this.until.delete(upstream);
    return 0;
  }
}
