/**
 * One table of load levels: global buckets filled through the rate-limit
 * store, then the level computed by the load store, on memory (unit ring) and
 * Redis (integration ring) with the same manual clock.
 */
import { expect, it } from 'vitest';
import type { ManualClock } from '../../src/common/clock.js';
import type { GlobalBucket, LoadStore } from '../../src/locks/rate-limit/store/load/load-store.js';
import { defaultLoadSettings } from '../../src/locks/rate-limit/settings/load.settings.js';
import type { LoadLevel } from '../../src/locks/rate-limit/core/load.types.js';
import type { RateLimitStore } from '../../src/locks/rate-limit/store/rate-limit.store.js';

export interface LoadHarness {
  store: RateLimitStore;
  load: LoadStore;
  clock: ManualClock;
  prefix: string;
}

interface Row {
  name: string;
  /** Tokens taken from each bucket (search: GCRA 20 at 1/s; inference: token bucket 10 at 1/s). */
  take: { search?: number; inference?: number };
  advanceMs?: number;
  pin?: LoadLevel;
  level: LoadLevel;
  fill: number;
  source?: string;
}

const ROWS: Row[] = [
  { name: 'nothing used', take: {}, level: 'normal', fill: 0 },
  { name: 'search 12 of 20', take: { search: 12 }, level: 'normal', fill: 0.6, source: 'search' },
  { name: 'search 15 of 20', take: { search: 15 }, level: 'soft', fill: 0.75, source: 'search' },
  {
    name: 'inference 10 of 10 (token bucket)',
    take: { search: 2, inference: 10 },
    level: 'hard',
    fill: 1,
    source: 'inference',
  },
  {
    name: 'search 19 of 20, 6 s later',
    take: { search: 19 },
    advanceMs: 6_000,
    level: 'normal',
    fill: 0.65,
    source: 'search',
  },
  { name: 'pinned soft', take: {}, pin: 'soft', level: 'soft', fill: 0 },
];

export function runLoadScenarios(make: () => Promise<LoadHarness>): void {
  for (const row of ROWS) {
    it(`should compute ${row.level} for ${row.name}`, async () => {
      const h = await make();
      const buckets: GlobalBucket[] = [
        {
          policy: 'search',
          key: `${h.prefix}:global:-:search.global`,
          kind: 'g',
          capacity: 20,
          intervalUs: 1e6,
        },
        {
          policy: 'inference',
          key: `${h.prefix}:global:-:inference.global`,
          kind: 't',
          capacity: 10,
          intervalUs: 1e6,
        },
      ];
      for (const b of buckets) {
        const n = row.take[b.policy as 'search' | 'inference'];
        if (!n) continue;
        const d = await h.store.decide({
          buckets: [
            {
              ...b,
              cost: n,
              shadow: false,
              soft: false,
              degradable: false,
              group: h.prefix.slice(3),
            },
          ],
          degradeAt: 0,
          degradeFactor: 1,
          degradedHint: false,
        });
        expect(d.allowed).toBe(true);
      }
      h.clock.advance(row.advanceMs ?? 0);
      const s = { ...defaultLoadSettings(), holdMs: 0, ...(row.pin ? { pin: row.pin } : {}) };
      const got = await h.load.compute(`${h.prefix}:load`, buckets, s);
      expect(got.level).toBe(row.level);
      expect(got.fill).toBeCloseTo(row.fill, 5);
      expect(got.source).toBe(row.source);
    });
  }
}
