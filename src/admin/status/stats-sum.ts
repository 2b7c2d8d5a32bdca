import type { LockCounts } from './stats-store.js';

/** Sums the counters of several instances, lock by lock and policy by policy. */
export function sumCounts(list: readonly LockCounts[]): LockCounts {
  const out: LockCounts = {};
  for (const counts of list) {
    for (const [lock, byPolicy] of Object.entries(counts)) {
      for (const [policy, c] of Object.entries(byPolicy)) {
        const target = ((out[lock] ??= {})[policy] ??= {
          allowed: 0,
          rejected: 0,
          shadow_rejected: 0,
          short_circuited: 0,
          skipped: 0,
        });
        for (const [k, n] of Object.entries(c) as [keyof typeof c, number][])
          target[k] = (target[k] ?? 0) + n;
      }
    }
  }
  return out;
}
