import { MemoryStoreFullError } from '../../src/common/bounded-map.js';
import type { ManualClock } from '../../src/common/clock.js';
import type { BucketSpec, DecideRequest } from '../../src/locks/rate-limit/core/decision.types.js';
import { observeParams, riskKey, riskParams } from '../../src/locks/rate-limit/core/risk-params.js';
import { DenyCache } from '../../src/locks/rate-limit/limiter/deny-cache.js';
import { defaultRiskSettings } from '../../src/locks/rate-limit/settings/risk.settings.js';
import { MemoryRateLimitStore } from '../../src/locks/rate-limit/store/memory-rate-limit.store.js';
import { MemoryRiskRecords } from '../../src/locks/rate-limit/store/risk/memory-risk-records.js';
import { MemoryRiskStore } from '../../src/locks/rate-limit/store/risk/memory-risk.store.js';

/**
 * A sweep of distinct subjects (IPv6 /64s) through the memory rate-limit, risk and deny-cache
 * stores, as the limiter drives them: per request a per-ip bucket (burst 120, 20/s), a per-ip
 * daily quota (its key lives a day: without a cap, one key per subject ever seen) and the
 * subject's risk record; one subject in ten also sends a bad signature (a risk signal), and a
 * refused one lands in the deny cache. Used by memory-sweep.spec.ts and test/bench/memory.bench.mjs.
 */
export interface SweepCaps {
  entries: number;
  riskRecords: number;
  denyCache: number;
}

export interface SweepStores {
  clock: ManualClock;
  store: MemoryRateLimitStore;
  risk: MemoryRiskStore;
  deny: DenyCache;
}

export function sweepStores(clock: ManualClock, caps: SweepCaps): SweepStores {
  const store = new MemoryRateLimitStore(
    clock,
    new MemoryRiskRecords(caps.riskRecords),
    caps.entries,
  );
  return {
    clock,
    store,
    risk: new MemoryRiskStore(store.risk, clock),
    deny: new DenyCache(caps.denyCache),
  };
}

const TAG = '{prod:rampart}';
const spec = (key: string, capacity: number, perSecond: number): BucketSpec => ({
  key,
  kind: 'g',
  capacity,
  intervalUs: 1e6 / perSecond,
  cost: 1,
  shadow: false,
  soft: false,
  degradable: false,
  risky: true,
  group: TAG,
});

export interface SweepTally {
  allowed: number;
  refused: number;
  /** Decisions the full store refused (the limiter's 503). */
  full: number;
}

/**
 * Sends `n` distinct subjects, `perMs` per millisecond of the manual clock; `each` runs every
 * `every` subjects (the test checks the caps there).
 */
export async function sweep(
  s: SweepStores,
  n: number,
  opts: { perMs?: number; every?: number; each?: () => void } = {},
): Promise<SweepTally> {
  const risk = defaultRiskSettings();
  const params = riskParams(risk, undefined);
  const observe = observeParams(risk);
  const tally: SweepTally = { allowed: 0, refused: 0, full: 0 };
  const perMs = opts.perMs ?? 10;
  for (let i = 0; i < n; i++) {
    // A keyed hash's shape (16 base64url characters), without the HMAC: the stores are measured, not it.
    const part = (i * 2654435761).toString(36).padStart(16, '0').slice(-16);
    const buckets = [
      spec(`rl:${TAG}:ip:${part}:inference.per-ip`, 120, 20),
      spec(`rl:${TAG}:ip:${part}:inference.per-ip-day`, 2_000, 2_000 / 86_400),
    ];
    const req: DecideRequest = {
      buckets,
      degradeAt: 0,
      degradeFactor: 1,
      degradedHint: false,
      risk: { keys: [riskKey(TAG, 'ip', part)], params },
    };
    try {
      const d = s.store.decideSync(req);
      if (d.allowed) tally.allowed += 1;
      else {
        tally.refused += 1;
        s.deny.add(
          buckets[d.blocker]!.key,
          d.nowMs + d.buckets[d.blocker]!.retryAfterMs,
          1,
          1,
          d.nowMs,
        );
      }
    } catch (err) {
      if (!(err instanceof MemoryStoreFullError)) throw err;
      tally.full += 1;
      s.deny.add(buckets[0]!.key, s.clock.now() + 1_000, 1, 1, s.clock.now());
    }
    if (i % 10 === 0)
      await s.risk.observe(
        [
          {
            kind: 'signal',
            key: riskKey(TAG, 'ip', part),
            signal: 'bad_signature',
            count: 1,
            points: 5,
          },
        ],
        observe,
      );
    if ((i + 1) % perMs === 0) s.clock.advance(1);
    if (opts.each && (i + 1) % (opts.every ?? 10_000) === 0) opts.each();
  }
  return tally;
}
