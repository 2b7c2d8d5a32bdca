import {
  Decision,
  DecideRequest,
  TTL_MARGIN_MS,
  duplicateDecision,
  reenteredDecision,
} from '../core/decision.types.js';
import { bucketTtlMs } from '../core/rule-kinds.js';
import type { MemoryEntries } from './memory-entries.js';

/** A claim's value: taken (1), or given back with its charge kept (2: the Redis value 'c'). */
const TAKEN = 1;
const CHARGED = 2;

/**
 * The claim first, as the script does: a duplicate decides and charges nothing, nor does a re-entry
 * on a kept charge (the claim is taken again, same expiry). Undefined when the claim is not held.
 */
export function heldClaim(
  entries: MemoryEntries,
  claim: DecideRequest['claim'],
  nowMs: number,
): Decision | undefined {
  const held = claim ? entries.read(claim.key, nowMs) : undefined;
  if (held === CHARGED) {
    entries.set(claim!.key, TAKEN, entries.expiresAt(claim!.key)!, nowMs);
    return reenteredDecision(nowMs);
  }
  return held === undefined ? undefined : duplicateDecision(nowMs);
}

/** Takes the request's claim (the caller made room for it). */
export function takeClaim(
  entries: MemoryEntries,
  claim: DecideRequest['claim'],
  nowMs: number,
): void {
  if (claim) entries.set(claim.key, TAKEN, nowMs + claim.ttlMs, nowMs);
}

/** A live claim given back with its charge kept: its next copy re-enters uncharged (as the script's 'c'). */
export function keepCharge(entries: MemoryEntries, key: string, nowMs: number): void {
  entries.replace(key, CHARGED, nowMs);
}

/**
 * Told once per window: a refusal with `told` keys sets the blocker's told key, which lives
 * max(retry-after, its window), as in the scripts; `decision.notify` says whether it was set now.
 */
export function markTold(
  entries: MemoryEntries,
  req: DecideRequest,
  decision: Decision,
  nowMs: number,
): void {
  if (decision.allowed || !req.told) return;
  const key = req.told[decision.blocker]!;
  const window = bucketTtlMs(req.buckets[decision.blocker]!) - TTL_MARGIN_MS;
  const ttl = Math.max(1, decision.buckets[decision.blocker]!.retryAfterMs, window);
  // A told mark that does not fit is not set, and the subject is not told (never told twice).
  decision.notify =
    entries.read(key, nowMs) === undefined && entries.set(key, 1, nowMs + ttl, nowMs);
}
