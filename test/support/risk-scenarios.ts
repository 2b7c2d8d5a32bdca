/**
 * THE table of risk scores: signals → score → multiplier → effective capacity,
 * run against the memory stores (unit ring) and the Redis stores (integration
 * ring) with the same manual clock; both must give the same numbers.
 */
import { expect, it } from 'vitest';
import type { ManualClock } from '../../src/common/clock.js';
import { observeParams, riskParams } from '../../src/locks/rate-limit/core/risk-params.js';
import type { RiskStore } from '../../src/locks/rate-limit/store/risk/risk-store.js';
import { defaultRiskSettings } from '../../src/locks/rate-limit/settings/risk.settings.js';
import type { RiskObservation, RiskSignal } from '../../src/locks/rate-limit/core/risk.types.js';
import type { RateLimitStore } from '../../src/locks/rate-limit/store/rate-limit.store.js';

export interface RiskHarness {
  store: RateLimitStore;
  risk: RiskStore;
  clock: ManualClock;
  /** Unique prefix with its hash tag, e.g. `rl:{t123:rampart}`. */
  prefix: string;
}

const SETTINGS = { ...defaultRiskSettings(), pointDecayMs: 1_000 };
const DAY = 86_400_000;
const HOUR = 3_600_000;

type Step =
  | { signal: RiskSignal; count: number }
  | { payload: string }
  | { chat: string }
  | { advance: number };

interface Row {
  name: string;
  steps: Step[];
  tier?: string;
  score: number;
  multiplier: number;
  /** Capacity in force of a bucket of 10 (the `limit` of the decision). */
  limit: number;
}

const sig = (signal: RiskSignal, count = 1): Step => ({ signal, count });

export const RISK_ROWS: Row[] = [
  { name: 'a new subject', steps: [], score: 10, multiplier: 1, limit: 10 },
  {
    name: 'new + 2 bad signatures',
    steps: [sig('bad_signature', 2)],
    score: 20,
    multiplier: 0.5,
    limit: 5,
  },
  {
    name: 'new + 8 junk keys + 1 bad signature',
    steps: [sig('bloom_absent', 8), sig('bad_signature')],
    score: 31,
    multiplier: 0.5,
    limit: 5,
  },
  {
    name: 'new + 10 bad signatures + 5 junk keys',
    steps: [sig('bad_signature', 10), sig('bloom_absent', 5)],
    score: 70,
    multiplier: 0.2,
    limit: 2,
  },
  {
    name: 'the same, 30 s later (decayed 30 points)',
    steps: [sig('bad_signature', 10), sig('bloom_absent', 5), { advance: 30_000 }],
    score: 40,
    multiplier: 0.5,
    limit: 5,
  },
  {
    name: 'the same, 11 minutes later (decayed, no longer new)',
    steps: [sig('bad_signature', 10), sig('bloom_absent', 5), { advance: 660_000 }],
    score: 0,
    multiplier: 1,
    limit: 10,
  },
  {
    name: 'capped at maxScore',
    steps: [sig('bad_signature', 40)],
    score: 110,
    multiplier: 0.2,
    limit: 2,
  },
  {
    name: 'a pro subject starts higher',
    steps: [],
    tier: 'pro',
    score: 0,
    multiplier: 1,
    limit: 10,
  },
  {
    name: 'a repeated payload',
    steps: [{ payload: 'a' }, { payload: 'b' }, { payload: 'a' }],
    score: 13,
    multiplier: 1,
    limit: 10,
  },
  {
    name: 'a user in 6 chats (5 allowed)',
    steps: ['1', '2', '3', '4', '5', '6'].map((c) => ({ chat: c })),
    score: 20,
    multiplier: 0.5,
    limit: 5,
  },
  {
    name: 'stable use over 11 days earns reputation (bounded)',
    steps: [{ advance: 11 * DAY }],
    score: -20,
    multiplier: 1.5,
    limit: 15,
  },
  {
    name: 'reputation then 4 bad signatures',
    steps: [{ advance: 3 * DAY }, sig('bad_signature', 4)],
    score: 14,
    multiplier: 1,
    limit: 10,
  },
];

/** Advances the clock by `ms`, the subject seen (`visit`) every hour on the way. */
export async function advanceSeen(
  h: Pick<RiskHarness, 'clock'>,
  ms: number,
  visit: () => Promise<unknown>,
): Promise<void> {
  for (; ms > HOUR; ms -= HOUR) {
    h.clock.advance(HOUR);
    await visit();
  }
  h.clock.advance(ms);
}

export function runRiskScenarios(make: () => Promise<RiskHarness>): void {
  for (const row of RISK_ROWS) {
    it(`should give ${row.name}: score ${row.score}, ×${row.multiplier}, capacity ${row.limit}`, async () => {
      const h = await make();
      const rk = `${h.prefix}:risk:user:u1`;
      const decide = () =>
        h.store.decide({
          buckets: [
            {
              key: `${h.prefix}:user:u1:t`,
              kind: 'g',
              capacity: 10,
              intervalUs: 1e6,
              cost: 1,
              shadow: false,
              soft: false,
              degradable: false,
              risky: true,
              group: h.prefix.slice(3),
            },
          ],
          degradeAt: 0,
          degradeFactor: 1,
          degradedHint: false,
          risk: { keys: [rk], params: riskParams(SETTINGS, row.tier) },
        });
      await decide(); // first sight: the record starts here
      for (const s of row.steps) {
        let o: RiskObservation | undefined;
        // Days of stable use: the subject is seen every hour (a quiet young record lapses after two hours).
        if ('advance' in s) await advanceSeen(h, s.advance, decide);
        else if ('signal' in s)
          o = {
            kind: 'signal',
            key: rk,
            signal: s.signal,
            count: s.count,
            points: s.count * SETTINGS.weights[s.signal],
          };
        else if ('payload' in s)
          o = { kind: 'payload', key: rk, marker: `${h.prefix}:riskp:u1:${s.payload}` };
        else o = { kind: 'chat', key: rk, set: `${h.prefix}:riskc:u1`, member: s.chat };
        if (o) await h.risk.observe([o], observeParams(SETTINGS));
      }
      const d = await decide();
      expect(d.risk).toEqual({ score: row.score, multiplier: row.multiplier });
      expect(d.buckets[0]!.limit).toBe(row.limit);
      const rec = await h.risk.read(rk);
      expect(rec?.f).toBeDefined();
    });
  }

  it('should give a batch with repeats exactly the records and count of separate observations', async () => {
    const h = await make();
    // Fractional points on an odd decay: adding 0.1 five times is not adding 0.5 once.
    const p = { ...observeParams(SETTINGS), unitUs: 1_234_567, maxScore: 1_000 };
    const observations = (side: string): RiskObservation[] => {
      const rk = `${h.prefix}:risk:ip:${side}`;
      const other = `${h.prefix}:risk:ip:${side}-other`;
      const s = (signal: RiskSignal, points: number, key = rk): RiskObservation => ({
        kind: 'signal',
        key,
        signal,
        count: 1,
        points,
      });
      const payload: RiskObservation = { kind: 'payload', key: rk, marker: `${rk}:p` };
      const bad = s('bad_signature', 0.1);
      return [
        ...[bad, bad, s('bad_signature', 0.1, other), bad, bad, bad],
        ...[s('bloom_absent', 0.3), bad, bad, payload, bad, payload, bad, bad],
        ...[s('bad_signature', 0.7), s('bad_signature', 0.7, other), bad],
      ];
    };
    const together = await h.risk.observe(observations('t'), p);
    let apart = 0;
    for (const o of observations('a')) apart += await h.risk.observe([o], p);
    expect(together).toBe(apart);
    for (const k of ['', '-other'])
      expect(await h.risk.read(`${h.prefix}:risk:ip:t${k}`)).toEqual(
        await h.risk.read(`${h.prefix}:risk:ip:a${k}`),
      );
  });

  it('should count each signal in the record and forget it on reset', async () => {
    const h = await make();
    const rk = `${h.prefix}:risk:ip:x`;
    const p = observeParams(SETTINGS);
    await h.risk.observe(
      [{ kind: 'signal', key: rk, signal: 'not_found', count: 3, points: 3 }],
      p,
    );
    await h.risk.observe(
      [{ kind: 'signal', key: rk, signal: 'not_found', count: 2, points: 2 }],
      p,
    );
    const rec = await h.risk.read(rk);
    expect(rec?.signals.not_found?.count).toBe(5);
    expect(rec!.s! - h.clock.now() * 1000).toBeCloseTo(5 * 1e6, -1);
    expect(await h.risk.reset(rk)).toBe(true);
    expect(await h.risk.read(rk)).toBeUndefined();
  });
}
