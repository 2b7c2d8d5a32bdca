/**
 * THE table of a verified subject behind a shared address (docs/quotas.md#verified-subjects-behind-a-shared-address):
 * a request with a verified user's record and an address's record, decided once as a verified request (the
 * user's record first, `verified: 1`) and once as an unproven one (`verified: 0`: the worst of both counts).
 * Run on the memory stores (unit ring) and on Redis (integration ring, both decision scripts).
 */
import { expect, it } from 'vitest';
import { observeParams, riskParams } from '../../src/locks/rate-limit/core/risk-params.js';
import { defaultRiskSettings } from '../../src/locks/rate-limit/settings/risk.settings.js';
import type { RiskSignal } from '../../src/locks/rate-limit/core/risk.types.js';
import { advanceSeen, type RiskHarness } from './risk-scenarios.js';

/** One point decays in 1 s; the address window is the shipped 1 min. */
const SETTINGS = { ...defaultRiskSettings(), pointDecayMs: 1_000 };
const DAY = 86_400_000;

type Step = { on: 'user' | 'address'; signal: RiskSignal; count: number } | { advance: number };

interface Row {
  name: string;
  steps: Step[];
  /** Multiplier of the verified request, then of an unproven request with the same two records. */
  verified: number;
  unproven: number;
}

const bad = (on: 'user' | 'address', count: number): Step => ({
  on,
  signal: 'bad_signature',
  count,
});

export const ADDRESS_ROWS: Row[] = [
  {
    // The finding: address 10 new + 50 = 60 (×0.2); the user's own 10 (×1), lowered one band only.
    name: 'a fresh verified user behind an address that just sent 10 bad signatures',
    steps: [bad('address', 10)],
    verified: 0.5,
    unproven: 0.2,
  },
  {
    name: 'the same address 59 s after its last signal (still misbehaving: 10 + 100 − 59 = 51)',
    steps: [bad('address', 20), { advance: 59_000 }],
    verified: 0.5,
    unproven: 0.2,
  },
  {
    name: 'the same address 61 s after its last signal (its decay tail, 49, no longer counts)',
    steps: [bad('address', 20), { advance: 61_000 }],
    verified: 1,
    unproven: 0.5,
  },
  {
    name: 'a verified user whose own record is bad (judged by it: 60)',
    steps: [bad('user', 10)],
    verified: 0.2,
    unproven: 0.2,
  },
  {
    name: 'a user with reputation (−20, ×1.5) behind a misbehaving address (80)',
    steps: [{ advance: 11 * DAY }, bad('address', 20)],
    verified: 1,
    unproven: 0.2,
  },
  {
    name: 'an address that only is new (no signal) never lowers a verified user',
    steps: [{ advance: 11 * DAY }],
    verified: 1.5,
    unproven: 1.5,
  },
];

/** Requests a bucket of 10 lets through at each band's multiplier. */
const ALLOWED: Record<number, number> = { 0.2: 2, 0.5: 5, 1: 10, 1.5: 14 };

export function runAddressScenarios(make: () => Promise<RiskHarness>): void {
  for (const row of ADDRESS_ROWS) {
    it(`should give ${row.name}: verified ×${row.verified}, unproven ×${row.unproven}`, async () => {
      const h = await make();
      const uk = `${h.prefix}:risk:user:u1`;
      const ak = `${h.prefix}:risk:ip:a1`;
      const decide = (verified: number, bucket = `t${verified}`) =>
        h.store.decide({
          buckets: [
            {
              key: `${h.prefix}:user:u1:${bucket}`,
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
          risk: { keys: [uk, ak], params: riskParams(SETTINGS, undefined), verified },
        });
      await decide(1); // first sight of both records
      for (const s of row.steps) {
        // Days of stable use: both subjects are seen every hour (a quiet young record lapses after two hours).
        if ('advance' in s) await advanceSeen(h, s.advance, () => decide(1, 'visit'));
        else {
          const points = s.count * SETTINGS.weights[s.signal];
          const key = s.on === 'user' ? uk : ak;
          const o = { kind: 'signal' as const, key, signal: s.signal, count: s.count, points };
          await h.risk.observe([o], observeParams(SETTINGS));
        }
      }
      const v = await decide(1);
      const u = await decide(0);
      expect([v.risk?.multiplier, u.risk?.multiplier]).toEqual([row.verified, row.unproven]);
      expect(v.buckets[0]!.limit).toBe(10 * row.verified);
      // What the store itself lets through (the script's own band, not only the figures replayed from it): the
      // clock stands still, so a full bucket of 10 at the multiplier (15 at ×1.5 is 14: a capacity of 15 tokens
      // of 1/1.5 s each does not hold 15 exactly in doubles; the bands' counts, 2 / 5 / 10 / 14, stay apart).
      let allowed = 0;
      while (allowed < 20 && (await decide(1, 'count')).allowed) allowed++;
      expect(allowed).toBe(ALLOWED[row.verified]);
    });
  }
}
