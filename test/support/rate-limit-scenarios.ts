/**
 * THE scenario table of the rate-limit stores: every scenario runs against
 * the memory store (unit ring) and the Redis/Lua store (integration ring),
 * with the same manual clock, and must give the same numbers.
 */
import { expect, it } from 'vitest';
import { CompiledRule, penaltyOf } from '../../src/locks/rate-limit/rules/compile-policy.js';
import { bucketFor, fuseBucket } from '../../src/locks/rate-limit/rules/bucket-specs.js';
import type { ManualClock } from '../../src/common/clock.js';
import { RateLimitStore } from '../../src/locks/rate-limit/store/rate-limit.store.js';
import {
  BucketSpec,
  Decision,
  TTL_MARGIN_MS,
  toldKey,
} from '../../src/locks/rate-limit/core/decision.types.js';
import { bucketTtlMs } from '../../src/locks/rate-limit/core/rule-kinds.js';

export interface StoreHarness {
  store: RateLimitStore;
  clock: ManualClock;
  /** PTTL semantics: ms to live, -1 no TTL, -2 absent. */
  ttl(key: string): Promise<number>;
  /** Key prefix unique to this run, with its hash tag, e.g. `rl:{t123:rampart}`. */
  prefix: string;
  /** Gives a live claim back with its charge kept, as RateLimitClaims.release(…, { charged: true }) does. */
  keepCharge(claimKey: string): Promise<void>;
}

type RuleOpts = Partial<Omit<CompiledRule, 'penalty'>> & {
  penalty?: { threshold: number; factor: number; decayMs: number; floor?: number };
};

function rule(name: string, capacity: number, rate: number, o: RuleOpts = {}): CompiledRule {
  const { penalty, ...rest } = o;
  return {
    name,
    id: `t.${name}`,
    dimension: 'user',
    kind: 'g',
    capacity,
    rate,
    shadow: false,
    action: name,
    scope: 'service',
    tiered: false,
    rank: 0,
    penalty:
      penalty &&
      penaltyOf(penalty.threshold, penalty.factor, penalty.decayMs * 1000, penalty.floor ?? 0.1),
    ...rest,
  };
}

interface Req {
  rules: CompiledRule[];
  cost?: number;
  /** Tier multiplier applied to every rule. */
  tier?: number;
  degrade?: { at: number; factor: number };
  fuse?: { limit: number; windowMs: number };
  /** Refusals the deny cache answered locally, handed to every penalty bucket as pending strikes. */
  pending?: number;
  /** A claim in the same call: key `<prefix>:claim:t:<id>`. */
  claim?: { id: string; ttlMs: number };
  /** onLimit flag: told keys for every bucket. */
  told?: boolean;
  /** The request's lease id (concurrency rules); default `lease-<step>-<repeat>`. */
  lease?: string;
}

interface Expect {
  allowed: boolean;
  blocker?: string;
  degraded?: boolean;
  /** Per rule name: remaining / retry-after ms / allowed / limit. */
  remaining?: Record<string, number>;
  retry?: Record<string, number>;
  ok?: Record<string, boolean>;
  limit?: Record<string, number>;
  /** Per rule name: milliseconds a paced request waits for its reserved slot (0 = none). */
  wait?: Record<string, number>;
  /** The claim was taken already (nothing decided). Checked as false when the step has a claim and this is unset. */
  duplicate?: boolean;
  /** The claim kept an earlier copy's charge: taken again, allowed, nothing decided. Checked as false when unset. */
  reentered?: boolean;
  /** First refusal in the window (told keys). */
  notify?: boolean;
}

interface Step {
  /** Milliseconds to move the clock before the request (negative = clock goes back). */
  advance?: number;
  req: Req;
  expect: Expect;
  /** Repeat the same step n times with the same expectation. */
  times?: number;
  /** Real milliseconds to wait before the request, so Redis expires claim and told keys (PX runs on Redis time). */
  wait?: number;
  /** Before the request: give back this lease id in the step's concurrency buckets (`RateLimitStore.release`). */
  release?: string;
  /** Before the request: give back these lease ids in one event-loop turn (one batched release call in Redis). */
  releaseAll?: string[];
  /**
   * Instead of `times`: one request per entry (`req` by default the step's, lease `lease-<step>-<index>`), all
   * decided in ONE event-loop turn (one batch call in Redis), in entry order, each checked against its `expect`.
   */
  together?: { req?: Req; expect: Expect }[];
  /** Before the request: give this claim id back with its charge kept (`StoreHarness.keepCharge`). */
  keep?: string;
  /** Before the request: settle the token reservations of step `step` (its first request) to `used` tokens. */
  settle?: { step: number; used: number };
}

interface Scenario {
  name: string;
  steps: Step[];
}

const A = rule('a', 3, 1);
const FAST = rule('fast', 1, 20);
const TB1 = rule('tb', 1, 1, { kind: 't' });
const B = rule('b', 2, 1);
const BIG = rule('big', 5, 1);
const WIN = rule('win', 4, 4);
/** Two requests in flight at most; a lease lives 10 s if never given back (rate = capacity ÷ lease). */
const CONC = rule('conc', 2, 0.2, { kind: 'c', leaseUs: 10_000_000 });
/** 100 tokens per 10 s window (aligned to the epoch: the manual clock starts on a window's first µs). */
const TOK = rule('tok', 100, 10, {
  kind: 'k',
  windowUs: 10_000_000,
  tokens: { count: 'total', perModel: false },
});

/** Paced: burst 2, 10/s (100 ms a token), a request that fits within 300 ms waits for its slot. */
const PACED = rule('paced', 2, 10, { maxWaitUs: 300_000 });
const TB_PACED = rule('tbp', 2, 10, { kind: 't', maxWaitUs: 300_000 });
/** Warm-up (kind 'w'): burst 1, 10/s (100 ms a token), warmUp 1 s: cold, one token every 300 ms at first. */
const WARM = rule('warm', 1, 10, { kind: 'w', warmUpUs: 1_000_000 });
/** Warm-up and paced: burst 2, 10/s, warmUp 1 s, a request that fits within 300 ms waits for its slot. */
const WARM_PACED = rule('wp', 2, 10, { kind: 'w', warmUpUs: 1_000_000, maxWaitUs: 300_000 });

export const SCENARIOS: Scenario[] = [
  {
    name: 'warm-up GCRA: a cold bucket starts at a third of its rate, the full rate after warmUp, cold again after idle',
    steps: [
      // Cold (absent): the interval is 3 × 100 ms; the next token comes back 300 ms later.
      {
        req: { rules: [WARM] },
        expect: { allowed: true, remaining: { warm: 0 }, retry: { warm: 300 } },
      },
      { req: { rules: [WARM] }, expect: { allowed: false, blocker: 'warm', retry: { warm: 300 } } },
      // Half way through the warm-up: 2 × 100 ms.
      { advance: 500, req: { rules: [WARM] }, expect: { allowed: true, retry: { warm: 200 } } },
      { req: { rules: [WARM] }, expect: { allowed: false, retry: { warm: 200 } } },
      // Past the warm-up (1.1 s since it started, idle 400 ms): the full rate.
      { advance: 600, req: { rules: [WARM] }, expect: { allowed: true, retry: { warm: 100 } } },
      { req: { rules: [WARM] }, expect: { allowed: false, retry: { warm: 100 } } },
      // Full and idle for 2.1 s (≥ warmUp): cold again.
      { advance: 2200, req: { rules: [WARM] }, expect: { allowed: true, retry: { warm: 300 } } },
      { req: { rules: [WARM] }, expect: { allowed: false, retry: { warm: 300 } } },
    ],
  },
  {
    name: 'warm-up GCRA: a busy bucket never slows; each subject warms up on its own',
    steps: [
      { req: { rules: [WARM] }, expect: { allowed: true, retry: { warm: 300 } } },
      { advance: 1000, req: { rules: [WARM] }, expect: { allowed: true, retry: { warm: 100 } } },
      // 3 s of traffic at the full rate (3 × warmUp): never cold, never slower.
      ...Array.from({ length: 30 }, () => ({
        advance: 100,
        req: { rules: [WARM] },
        expect: { allowed: true, retry: { warm: 100 } },
      })),
      { req: { rules: [WARM] }, expect: { allowed: false, retry: { warm: 100 } } },
      // Idle shorter than the warm-up: still warm.
      { advance: 900, req: { rules: [WARM] }, expect: { allowed: true, retry: { warm: 100 } } },
      { req: { rules: [WARM] }, expect: { allowed: false, retry: { warm: 100 } } },
      // Another subject's bucket is cold on its own.
      {
        req: { rules: [{ ...WARM, action: 'other' }] },
        expect: { allowed: true, retry: { warm: 300 } },
      },
    ],
  },
  {
    name: 'warm-up and paced: a cold burst is admitted at a third of the rate (3 of it), a warm one at the full rate (5)',
    steps: [
      // Cold: 300 ms a token, burst 2, wait 300 ms: two at once, one held 300 ms, then a 429.
      {
        req: { rules: [WARM_PACED] },
        expect: { allowed: true, remaining: { wp: 1 }, wait: { wp: 0 } },
      },
      { req: { rules: [WARM_PACED] }, expect: { allowed: true, wait: { wp: 0 } } },
      { req: { rules: [WARM_PACED] }, expect: { allowed: true, wait: { wp: 300 } } },
      {
        req: { rules: [WARM_PACED] },
        expect: { allowed: false, blocker: 'wp', retry: { wp: 300 }, wait: { wp: 0 } },
      },
      // Warm (1 s after the start, idle 100 ms): 100 ms a token, two at once, three held, then a 429.
      {
        advance: 1000,
        req: { rules: [WARM_PACED] },
        expect: { allowed: true, wait: { wp: 0 } },
        times: 2,
      },
      { req: { rules: [WARM_PACED] }, expect: { allowed: true, wait: { wp: 100 } } },
      { req: { rules: [WARM_PACED] }, expect: { allowed: true, wait: { wp: 200 } } },
      { req: { rules: [WARM_PACED] }, expect: { allowed: true, wait: { wp: 300 } } },
      { req: { rules: [WARM_PACED] }, expect: { allowed: false, retry: { wp: 100 } } },
    ],
  },
  {
    name: 'paced GCRA: past the burst each request waits one interval more, past the wait a 429',
    steps: [
      {
        req: { rules: [PACED] },
        expect: { allowed: true, remaining: { paced: 1 }, wait: { paced: 0 } },
      },
      {
        req: { rules: [PACED] },
        expect: { allowed: true, remaining: { paced: 0 }, wait: { paced: 0 } },
      },
      {
        req: { rules: [PACED] },
        expect: { allowed: true, remaining: { paced: 0 }, wait: { paced: 100 } },
      },
      { req: { rules: [PACED] }, expect: { allowed: true, wait: { paced: 200 } } },
      // The last slot within the wait; a next request would be admitted (paced) 100 ms from now.
      {
        req: { rules: [PACED] },
        expect: { allowed: true, wait: { paced: 300 }, retry: { paced: 100 } },
      },
      // Past the wait: refused, nothing reserved, retry when it would fit within the wait.
      {
        req: { rules: [PACED] },
        expect: { allowed: false, blocker: 'paced', retry: { paced: 100 }, wait: { paced: 0 } },
        times: 2,
      },
      // Another subject's bucket decides its own wait: none.
      {
        req: { rules: [{ ...PACED, action: 'other' }] },
        expect: { allowed: true, remaining: { paced: 1 }, wait: { paced: 0 } },
      },
      { advance: 100, req: { rules: [PACED] }, expect: { allowed: true, wait: { paced: 300 } } },
      {
        advance: 2000,
        req: { rules: [PACED] },
        expect: { allowed: true, remaining: { paced: 1 }, wait: { paced: 0 } },
      },
    ],
  },
  {
    name: 'paced token bucket: tokens owed up to the wait, the same waits and refusals as GCRA',
    steps: [
      {
        req: { rules: [TB_PACED] },
        expect: { allowed: true, remaining: { tbp: 1 }, wait: { tbp: 0 } },
      },
      {
        req: { rules: [TB_PACED] },
        expect: { allowed: true, remaining: { tbp: 0 }, wait: { tbp: 0 } },
      },
      {
        req: { rules: [TB_PACED] },
        expect: { allowed: true, remaining: { tbp: 0 }, wait: { tbp: 100 } },
      },
      { req: { rules: [TB_PACED] }, expect: { allowed: true, wait: { tbp: 200 } } },
      {
        req: { rules: [TB_PACED] },
        expect: { allowed: true, wait: { tbp: 300 }, retry: { tbp: 100 } },
      },
      {
        req: { rules: [TB_PACED] },
        expect: { allowed: false, blocker: 'tbp', retry: { tbp: 100 } },
      },
      { advance: 100, req: { rules: [TB_PACED] }, expect: { allowed: true, wait: { tbp: 300 } } },
      {
        advance: 2000,
        req: { rules: [TB_PACED] },
        expect: { allowed: true, remaining: { tbp: 1 }, wait: { tbp: 0 } },
      },
    ],
  },
  {
    name: 'paced with other rules: all-or-nothing, each paced rule reports its own wait, a cost may wait past capacity',
    steps: [
      { req: { rules: [PACED, B] }, expect: { allowed: true, wait: { paced: 0 } } },
      { req: { rules: [PACED, B] }, expect: { allowed: true, wait: { paced: 0 } } },
      // b refuses: the paced rule reserves nothing.
      {
        req: { rules: [PACED, B] },
        expect: { allowed: false, blocker: 'b', ok: { paced: true, b: false } },
        times: 2,
      },
      {
        req: { rules: [PACED, TB_PACED] },
        expect: { allowed: true, wait: { paced: 100, tbp: 0 } },
      },
      // A cost of 3 on a burst of 1 (paced 300 ms): admitted, waiting for the two tokens beyond the burst.
      {
        req: { rules: [rule('c', 1, 10, { maxWaitUs: 300_000 })], cost: 3 },
        expect: { allowed: true, wait: { c: 200 } },
      },
      {
        req: { rules: [rule('c', 1, 10, { maxWaitUs: 300_000 })] },
        expect: { allowed: true, wait: { c: 300 } },
      },
      {
        req: { rules: [rule('c', 1, 10, { maxWaitUs: 300_000 })] },
        expect: { allowed: false, retry: { c: 100 } },
      },
    ],
  },
  {
    name: 'concurrency in one turn: the free slots go in order, the refused requests hold no lease',
    steps: [
      {
        req: { rules: [CONC] },
        expect: { allowed: true },
        together: [
          { expect: { allowed: true, remaining: { conc: 1 } } },
          { expect: { allowed: true, remaining: { conc: 0 } } },
          { expect: { allowed: false, blocker: 'conc', retry: { conc: 1000 } } },
          { expect: { allowed: false, blocker: 'conc', retry: { conc: 1000 } } },
        ],
      },
      // Both admitted leases given back in one turn: two slots free, so the refused two took none.
      {
        releaseAll: ['lease-1-0', 'lease-1-1'],
        req: { rules: [CONC] },
        expect: { allowed: true },
        together: [
          { expect: { allowed: true, remaining: { conc: 1 } } },
          { expect: { allowed: true, remaining: { conc: 0 } } },
          { expect: { allowed: false } },
        ],
      },
    ],
  },
  {
    name: 'concurrency and tokens in one turn: all-or-nothing per request with the other rules',
    steps: [
      {
        req: { rules: [CONC, TOK, rule('one', 1, 0.1, { cost: 1 })], cost: 30 },
        expect: { allowed: true },
        together: [
          { expect: { allowed: true, remaining: { conc: 1, tok: 70, one: 0 } } },
          // The rate rule refuses: no lease, no reservation.
          { expect: { allowed: false, blocker: 'one', ok: { conc: true, tok: true } } },
          { req: { rules: [TOK], cost: 70 }, expect: { allowed: true, remaining: { tok: 0 } } },
          { req: { rules: [TOK], cost: 1 }, expect: { allowed: false, blocker: 'tok' } },
          { req: { rules: [CONC] }, expect: { allowed: true, remaining: { conc: 0 } } },
          { req: { rules: [CONC] }, expect: { allowed: false, blocker: 'conc' } },
        ],
      },
      // Settled to 10 of its 30: 20 come back.
      {
        settle: { step: 1, used: 10 },
        req: { rules: [TOK], cost: 20 },
        expect: { allowed: true, remaining: { tok: 0 } },
      },
    ],
  },
  {
    name: 'tokens: reservations up to the budget, settled to what was used, in their own window only',
    steps: [
      {
        req: { rules: [TOK], cost: 60 },
        expect: { allowed: true, remaining: { tok: 40 }, limit: { tok: 100 }, retry: { tok: 0 } },
      },
      // A reservation that does not fit waits for the window's end.
      {
        req: { rules: [TOK], cost: 60 },
        expect: { allowed: false, blocker: 'tok', retry: { tok: 10_000 }, remaining: { tok: 40 } },
      },
      // Step 1 used 10 of its 60: 50 come back, and the same reservation fits now.
      {
        settle: { step: 1, used: 10 },
        req: { rules: [TOK], cost: 60 },
        expect: { allowed: true, remaining: { tok: 30 } },
      },
      {
        advance: 9000,
        req: { rules: [TOK], cost: 60 },
        expect: { allowed: false, retry: { tok: 1000 } },
      },
      // A new window: the budget is whole again.
      {
        advance: 1000,
        req: { rules: [TOK], cost: 60 },
        expect: { allowed: true, remaining: { tok: 40 } },
      },
      // A settlement of the last window's reservation changes nothing in this one.
      {
        settle: { step: 3, used: 0 },
        req: { rules: [TOK], cost: 40 },
        expect: { allowed: true, remaining: { tok: 0 } },
      },
      // Settled above the reservation: charged what was used (the window runs over, never refunds below 0).
      {
        settle: { step: 5, used: 70 },
        req: { rules: [TOK], cost: 1 },
        expect: { allowed: false, remaining: { tok: 0 } },
      },
    ],
  },
  {
    name: 'tokens in shadow mode: counted past its limit, never blocks, reserves nothing past it',
    steps: [
      {
        req: { rules: [{ ...TOK, shadow: true }], cost: 60 },
        expect: { allowed: true, ok: { tok: true } },
      },
      {
        req: { rules: [{ ...TOK, shadow: true }], cost: 60 },
        expect: { allowed: true, ok: { tok: false }, retry: { tok: 10_000 } },
      },
      // Only the first reservation was taken.
      { req: { rules: [TOK], cost: 40 }, expect: { allowed: true, remaining: { tok: 0 } } },
    ],
  },
  {
    name: 'tokens: all-or-nothing with the other rules, tiers scale the budget',
    steps: [
      {
        req: { rules: [TOK, rule('one', 1, 0.1, { cost: 1 })], cost: 30 },
        expect: { allowed: true },
      },
      // The rate rule refuses: nothing is reserved.
      {
        req: { rules: [TOK, rule('one', 1, 0.1, { cost: 1 })], cost: 30 },
        expect: { allowed: false, blocker: 'one', ok: { tok: true } },
      },
      { req: { rules: [TOK], cost: 70 }, expect: { allowed: true, remaining: { tok: 0 } } },
      {
        req: { rules: [TOK], cost: 50, tier: 2 },
        expect: { allowed: true, limit: { tok: 200 }, remaining: { tok: 50 } },
      },
    ],
  },
  {
    name: 'concurrency: leases up to capacity, a slot back on release, expired leases pruned',
    steps: [
      {
        req: { rules: [CONC], lease: 'lease-one' },
        expect: { allowed: true, remaining: { conc: 1 }, limit: { conc: 2 }, retry: { conc: 0 } },
      },
      // One lease per request whatever its cost.
      {
        req: { rules: [CONC], lease: 'lease-two', cost: 5 },
        expect: { allowed: true, remaining: { conc: 0 } },
      },
      {
        req: { rules: [CONC], lease: 'lease-three' },
        expect: { allowed: false, blocker: 'conc', retry: { conc: 1000 }, remaining: { conc: 0 } },
        times: 2,
      },
      {
        advance: 3000,
        release: 'lease-one',
        req: { rules: [CONC], lease: 'lease-three' },
        expect: { allowed: true, remaining: { conc: 0 } },
      },
      // lease-two (taken at 0 s) expires at 10 s: 400 ms before, a refusal waits for it.
      {
        advance: 6600,
        req: { rules: [CONC], lease: 'lease-four' },
        expect: { allowed: false, retry: { conc: 400 } },
      },
      // Never given back, it is pruned at its expiry and its slot is free again.
      {
        advance: 400,
        req: { rules: [CONC], lease: 'lease-four' },
        expect: { allowed: true, remaining: { conc: 0 } },
      },
      // A release of a lease that is gone already changes nothing.
      {
        release: 'lease-two',
        req: { rules: [CONC], lease: 'lease-five' },
        expect: { allowed: false },
      },
    ],
  },
  {
    name: 'concurrency in shadow mode: counted past its limit, never blocks, takes no lease past it',
    steps: [
      {
        req: { rules: [{ ...CONC, shadow: true }] },
        expect: { allowed: true, ok: { conc: true } },
        times: 2,
      },
      {
        req: { rules: [{ ...CONC, shadow: true }], lease: 's-2' },
        expect: { allowed: true, ok: { conc: false }, retry: { conc: 1000 } },
        times: 2,
      },
      // The two leases within its limit were taken; the ones past it were not (one release frees a slot).
      {
        release: 'lease-1-0',
        req: { rules: [CONC], lease: 's-3' },
        expect: { allowed: true, remaining: { conc: 0 } },
      },
    ],
  },
  {
    name: 'concurrency: all-or-nothing with the other rules, tiers scale the count, never below one',
    steps: [
      // The rate rule refuses: no lease is taken.
      { req: { rules: [CONC, rule('one', 1, 0.1)], lease: 'l-a' }, expect: { allowed: true } },
      {
        req: { rules: [CONC, rule('one', 1, 0.1)], lease: 'l-b' },
        expect: { allowed: false, blocker: 'one', ok: { conc: true } },
      },
      { req: { rules: [CONC], lease: 'l-c' }, expect: { allowed: true, remaining: { conc: 0 } } },
      {
        req: { rules: [CONC], lease: 'l-d', tier: 2 },
        expect: { allowed: true, limit: { conc: 4 }, remaining: { conc: 1 } },
      },
      {
        req: { rules: [CONC], lease: 'l-e', tier: 0.1 },
        expect: { allowed: false, limit: { conc: 1 } },
      },
    ],
  },
  {
    name: 'a burst up to capacity, then a refusal with the exact retry-after',
    steps: [
      { req: { rules: [A] }, expect: { allowed: true, remaining: { a: 2 }, retry: { a: 0 } } },
      { req: { rules: [A] }, expect: { allowed: true, remaining: { a: 1 } } },
      // allowed at the edge: the bucket also says when a next request would fit (feeds the deny cache)
      { req: { rules: [A] }, expect: { allowed: true, remaining: { a: 0 }, retry: { a: 1000 } } },
      {
        req: { rules: [A] },
        expect: { allowed: false, blocker: 'a', retry: { a: 1000 }, remaining: { a: 0 } },
      },
    ],
  },
  {
    name: 'refill at the configured rate',
    steps: [
      { req: { rules: [A] }, expect: { allowed: true }, times: 3 },
      { advance: 400, req: { rules: [A] }, expect: { allowed: false, retry: { a: 600 } } },
      { advance: 600, req: { rules: [A] }, expect: { allowed: true, remaining: { a: 0 } } },
      { advance: 3000, req: { rules: [A] }, expect: { allowed: true, remaining: { a: 2 } } },
    ],
  },
  {
    name: 'a rate of 6/min: exact retry-after of 10 s',
    steps: [
      { req: { rules: [rule('slow', 1, 0.1)] }, expect: { allowed: true, remaining: { slow: 0 } } },
      {
        advance: 2500,
        req: { rules: [rule('slow', 1, 0.1)] },
        expect: { allowed: false, retry: { slow: 7500 } },
      },
    ],
  },
  {
    name: 'costs: a request takes cost tokens and waits for cost tokens',
    steps: [
      {
        req: { rules: [rule('c', 10, 1)], cost: 4 },
        expect: { allowed: true, remaining: { c: 6 } },
      },
      {
        req: { rules: [rule('c', 10, 1)], cost: 4 },
        expect: { allowed: true, remaining: { c: 2 } },
      },
      {
        req: { rules: [rule('c', 10, 1)], cost: 4 },
        expect: { allowed: false, retry: { c: 2000 }, remaining: { c: 2 } },
      },
      {
        req: { rules: [rule('c', 10, 1)], cost: 2 },
        expect: { allowed: true, remaining: { c: 0 } },
      },
    ],
  },
  {
    name: 'a rule cost overrides the request cost',
    steps: [
      {
        req: { rules: [rule('c', 10, 1), rule('n', 10, 1, { cost: 1 })], cost: 3 },
        expect: { allowed: true, remaining: { c: 7, n: 9 } },
      },
    ],
  },
  {
    name: 'a cost above capacity is refused and charges nothing',
    steps: [
      {
        req: { rules: [rule('c', 3, 1)], cost: 4 },
        expect: { allowed: false, retry: { c: 1000 } },
      },
      {
        req: { rules: [rule('c', 3, 1)], cost: 3 },
        expect: { allowed: true, remaining: { c: 0 } },
      },
    ],
  },
  {
    name: 'multi-rule all-or-nothing: a refusal by one rule charges no other',
    steps: [
      { req: { rules: [BIG, B] }, expect: { allowed: true, remaining: { big: 4, b: 1 } } },
      { req: { rules: [BIG, B] }, expect: { allowed: true, remaining: { big: 3, b: 0 } } },
      {
        req: { rules: [BIG, B] },
        expect: {
          allowed: false,
          blocker: 'b',
          ok: { big: true, b: false },
          remaining: { big: 2, b: 0 },
        },
        times: 3,
      },
      {
        advance: 1000,
        req: { rules: [BIG, B] },
        expect: { allowed: true, remaining: { big: 3, b: 0 } },
      },
    ],
  },
  {
    name: 'the blocker is the refusing rule with the longest wait',
    steps: [
      { req: { rules: [rule('fast', 1, 1), rule('slow', 1, 0.25)] }, expect: { allowed: true } },
      {
        req: { rules: [rule('fast', 1, 1), rule('slow', 1, 0.25)] },
        expect: { allowed: false, blocker: 'slow', retry: { fast: 1000, slow: 4000 } },
      },
    ],
  },
  {
    name: 'shadow rules are decided and reported but never block nor get charged past their limit',
    steps: [
      {
        req: { rules: [BIG, rule('s', 1, 1, { shadow: true })] },
        expect: { allowed: true, ok: { s: true }, remaining: { big: 4, s: 0 } },
      },
      {
        req: { rules: [BIG, rule('s', 1, 1, { shadow: true })] },
        expect: { allowed: true, ok: { s: false }, retry: { s: 1000 } },
      },
      {
        advance: 1000,
        req: { rules: [BIG, rule('s', 1, 1, { shadow: true })] },
        expect: { allowed: true, ok: { s: true } },
      },
    ],
  },
  {
    name: 'tiers multiply capacity and rate',
    steps: [
      {
        req: { rules: [rule('t', 2, 1)], tier: 5 },
        expect: { allowed: true, remaining: { t: 9 }, limit: { t: 10 } },
        times: 1,
      },
      { req: { rules: [rule('t', 2, 1)], tier: 5 }, expect: { allowed: true }, times: 9 },
      { req: { rules: [rule('t', 2, 1)], tier: 5 }, expect: { allowed: false, retry: { t: 200 } } },
    ],
  },
  {
    name: 'progressive penalties shrink the quota after repeated refusals, then decay back',
    steps: [
      {
        req: {
          rules: [rule('p', 4, 1, { penalty: { threshold: 2, factor: 0.5, decayMs: 10_000 } })],
        },
        expect: { allowed: true },
        times: 4,
      },
      {
        req: {
          rules: [rule('p', 4, 1, { penalty: { threshold: 2, factor: 0.5, decayMs: 10_000 } })],
        },
        expect: { allowed: false, limit: { p: 4 } },
      },
      {
        req: {
          rules: [rule('p', 4, 1, { penalty: { threshold: 2, factor: 0.5, decayMs: 10_000 } })],
        },
        expect: { allowed: false, limit: { p: 4 } },
      },
      {
        advance: 4000,
        req: {
          rules: [rule('p', 4, 1, { penalty: { threshold: 2, factor: 0.5, decayMs: 10_000 } })],
        },
        expect: { allowed: true, limit: { p: 2 }, remaining: { p: 1 } },
      },
      {
        req: {
          rules: [rule('p', 4, 1, { penalty: { threshold: 2, factor: 0.5, decayMs: 10_000 } })],
        },
        expect: { allowed: true, remaining: { p: 0 } },
      },
      {
        req: {
          rules: [rule('p', 4, 1, { penalty: { threshold: 2, factor: 0.5, decayMs: 10_000 } })],
        },
        expect: { allowed: false, limit: { p: 2 }, retry: { p: 2000 } },
      },
      {
        advance: 30_000,
        req: {
          rules: [rule('p', 4, 1, { penalty: { threshold: 2, factor: 0.5, decayMs: 10_000 } })],
        },
        expect: { allowed: true, limit: { p: 4 }, remaining: { p: 3 } },
      },
    ],
  },
  {
    name: 'strikes from local refusals count, capped where the floor is reached, so the decay back is bounded',
    steps: [
      {
        req: {
          rules: [
            rule('p2', 4, 1, {
              penalty: { threshold: 1, factor: 0.5, decayMs: 10_000, floor: 0.25 },
            }),
          ],
          pending: 100,
        },
        expect: { allowed: true, limit: { p2: 1 }, remaining: { p2: 0 } },
      },
      {
        advance: 19_000,
        req: {
          rules: [
            rule('p2', 4, 1, {
              penalty: { threshold: 1, factor: 0.5, decayMs: 10_000, floor: 0.25 },
            }),
          ],
        },
        expect: { allowed: true, limit: { p2: 2 } },
      },
      {
        advance: 1_000,
        req: {
          rules: [
            rule('p2', 4, 1, {
              penalty: { threshold: 1, factor: 0.5, decayMs: 10_000, floor: 0.25 },
            }),
          ],
        },
        expect: { allowed: true, limit: { p2: 4 } },
      },
    ],
  },
  {
    name: 'degrade before reject: the global soft threshold lowers the other rules',
    steps: [
      {
        req: {
          rules: [rule('g', 10, 1, { dimension: 'global' }), rule('u', 4, 1, { action: 'u1' })],
          degrade: { at: 0.5, factor: 0.5 },
        },
        expect: { allowed: true, degraded: false, limit: { u: 4 } },
      },
      {
        req: {
          rules: [rule('g', 10, 1, { dimension: 'global' }), rule('u', 4, 1, { action: 'u2' })],
          degrade: { at: 0.5, factor: 0.5 },
        },
        expect: { allowed: true, degraded: false },
        times: 4,
      },
      {
        req: {
          rules: [rule('g', 10, 1, { dimension: 'global' }), rule('u', 4, 1, { action: 'u3' })],
          degrade: { at: 0.5, factor: 0.5 },
        },
        expect: {
          allowed: true,
          degraded: true,
          limit: { u: 2, g: 10 },
          remaining: { u: 1, g: 4 },
        },
      },
    ],
  },
  {
    name: 'a degraded rule is charged at the degraded rate, and that state carries over to the next request',
    steps: [
      {
        req: {
          rules: [rule('g', 10, 1, { dimension: 'global' }), rule('f', 10, 1, { action: 'f1' })],
          degrade: { at: 0.5, factor: 0.5 },
        },
        expect: { allowed: true, degraded: false },
        times: 5,
      },
      {
        req: {
          rules: [rule('g', 10, 1, { dimension: 'global' }), rule('u', 4, 1, { action: 'ud' })],
          degrade: { at: 0.5, factor: 0.5 },
        },
        expect: { allowed: true, degraded: true, limit: { u: 2 }, remaining: { u: 1 } },
      },
      {
        req: {
          rules: [rule('g', 10, 1, { dimension: 'global' }), rule('u', 4, 1, { action: 'ud' })],
          degrade: { at: 0.5, factor: 0.5 },
        },
        expect: { allowed: true, degraded: true, remaining: { u: 0 } },
      },
      {
        req: {
          rules: [rule('g', 10, 1, { dimension: 'global' }), rule('u', 4, 1, { action: 'ud' })],
          degrade: { at: 0.5, factor: 0.5 },
        },
        expect: {
          allowed: false,
          blocker: 'u',
          degraded: true,
          limit: { u: 2 },
          retry: { u: 2000 },
        },
      },
    ],
  },
  {
    name: 'token bucket: burst, refill and exact retry-after',
    steps: [
      {
        req: { rules: [rule('tb', 2, 2, { kind: 't' })] },
        expect: { allowed: true, remaining: { tb: 1 } },
      },
      {
        req: { rules: [rule('tb', 2, 2, { kind: 't' })] },
        expect: { allowed: true, remaining: { tb: 0 }, retry: { tb: 500 } },
      },
      {
        advance: 100,
        req: { rules: [rule('tb', 2, 2, { kind: 't' })] },
        expect: { allowed: false, retry: { tb: 400 } },
      },
      {
        advance: 400,
        req: { rules: [rule('tb', 2, 2, { kind: 't' })] },
        expect: { allowed: true, remaining: { tb: 0 } },
      },
    ],
  },
  {
    name: 'a clock that goes back never refills a bucket',
    steps: [
      {
        req: { rules: [rule('tb', 2, 1, { kind: 't' }), rule('gc', 2, 1)] },
        expect: { allowed: true },
        times: 2,
      },
      {
        advance: -5000,
        req: { rules: [rule('tb', 2, 1, { kind: 't' }), rule('gc', 2, 1)] },
        expect: { allowed: false, ok: { tb: false, gc: false } },
      },
      {
        advance: 5000,
        req: { rules: [rule('tb', 2, 1, { kind: 't' })] },
        expect: { allowed: false, retry: { tb: 1000 } },
      },
      {
        advance: 1000,
        req: { rules: [rule('tb', 2, 1, { kind: 't' }), rule('gc', 2, 1)] },
        expect: { allowed: true, remaining: { tb: 0, gc: 0 } },
      },
    ],
  },
  {
    name: 'the emergency fuse is a fixed window over everything',
    steps: [
      {
        req: { rules: [A], fuse: { limit: 2, windowMs: 1000 } },
        expect: { allowed: true, remaining: { fuse: 1 } },
      },
      {
        req: { rules: [rule('other', 3, 1)], fuse: { limit: 2, windowMs: 1000 } },
        expect: { allowed: true, remaining: { fuse: 0 }, retry: { fuse: 1000 } },
      },
      {
        advance: 300,
        req: { rules: [rule('third', 3, 1)], fuse: { limit: 2, windowMs: 1000 } },
        expect: { allowed: false, blocker: 'fuse', retry: { fuse: 700 }, ok: { third: true } },
      },
      {
        advance: 700,
        req: { rules: [rule('third', 3, 1)], fuse: { limit: 2, windowMs: 1000 } },
        expect: { allowed: true, remaining: { fuse: 1, third: 2 } },
      },
    ],
  },
  {
    name: 'claims: a duplicate charges nothing, the claim lives its TTL',
    steps: [
      {
        req: { rules: [A], claim: { id: 'u1', ttlMs: 400 } },
        expect: { allowed: true, remaining: { a: 2 } },
      },
      {
        req: { rules: [A], claim: { id: 'u1', ttlMs: 400 } },
        expect: { allowed: true, duplicate: true },
        times: 2,
      },
      {
        req: { rules: [A], claim: { id: 'u2', ttlMs: 400 } },
        expect: { allowed: true, remaining: { a: 1 } },
      },
      {
        // Long enough that a loaded machine still reads the TTL before it runs out.
        advance: 450,
        wait: 460,
        req: { rules: [A], claim: { id: 'u1', ttlMs: 400 } },
        expect: { allowed: true, remaining: { a: 0 } },
      },
    ],
  },
  {
    name: 'claims: given back with its charge kept, the next copy re-enters once, uncharged',
    steps: [
      {
        req: { rules: [A], claim: { id: 'r1', ttlMs: 5000 } },
        expect: { allowed: true, remaining: { a: 2 } },
      },
      // Given back with the charge kept: the next copy takes the claim again, nothing charged.
      {
        keep: 'r1',
        req: { rules: [A], claim: { id: 'r1', ttlMs: 5000 } },
        expect: { allowed: true, reentered: true },
      },
      // Taken again: a further copy is a duplicate.
      {
        req: { rules: [A], claim: { id: 'r1', ttlMs: 5000 } },
        expect: { allowed: true, duplicate: true },
      },
      {
        keep: 'r1',
        req: { rules: [A], claim: { id: 'r1', ttlMs: 5000 } },
        expect: { allowed: true, reentered: true },
      },
      // The re-entries charged nothing: a new id finds the bucket as the first request left it.
      {
        req: { rules: [A], claim: { id: 'r2', ttlMs: 5000 } },
        expect: { allowed: true, remaining: { a: 1 } },
      },
      // A claim never taken is not brought to life by a kept charge: the request is decided and charged.
      {
        keep: 'r3',
        req: { rules: [A], claim: { id: 'r3', ttlMs: 5000 } },
        expect: { allowed: true, remaining: { a: 0 } },
      },
      // The limit holds for every new id; a kept charge still re-enters at the limit.
      {
        req: { rules: [A], claim: { id: 'r4', ttlMs: 5000 } },
        expect: { allowed: false, blocker: 'a' },
      },
      {
        keep: 'r2',
        req: { rules: [A], claim: { id: 'r2', ttlMs: 5000 } },
        expect: { allowed: true, reentered: true },
      },
    ],
  },
  {
    name: 'claims: set even when the request is limited; a claim without rules',
    steps: [
      {
        req: { rules: [rule('one', 1, 0.1)], claim: { id: 'c1', ttlMs: 5000 } },
        expect: { allowed: true },
      },
      {
        req: { rules: [rule('one', 1, 0.1)], claim: { id: 'c2', ttlMs: 5000 } },
        expect: { allowed: false, blocker: 'one', retry: { one: 10000 } },
      },
      {
        req: { rules: [rule('one', 1, 0.1)], claim: { id: 'c2', ttlMs: 5000 } },
        expect: { allowed: true, duplicate: true },
      },
      { req: { rules: [], claim: { id: 'c3', ttlMs: 5000 } }, expect: { allowed: true } },
      {
        req: { rules: [], claim: { id: 'c3', ttlMs: 5000 } },
        expect: { allowed: true, duplicate: true },
      },
    ],
  },
  {
    name: 'told keys: the first refusal in a window notifies, the next ones do not, and again after the window',
    steps: [
      { req: { rules: [FAST], told: true }, expect: { allowed: true } },
      {
        req: { rules: [FAST], told: true },
        expect: { allowed: false, blocker: 'fast', retry: { fast: 50 }, notify: true },
      },
      { req: { rules: [FAST], told: true }, expect: { allowed: false, notify: false }, times: 2 },
      { advance: 50, wait: 60, req: { rules: [FAST], told: true }, expect: { allowed: true } },
      { req: { rules: [FAST], told: true }, expect: { allowed: false, notify: true } },
    ],
  },
  {
    name: 'told keys: told once until the window (capacity ÷ rate) passes, not only the retry-after',
    steps: [
      // 4 at 4/s: retry-after 250 ms, window 1 s
      { req: { rules: [WIN], told: true }, expect: { allowed: true }, times: 4 },
      {
        req: { rules: [WIN], told: true },
        expect: { allowed: false, blocker: 'win', retry: { win: 250 }, notify: true },
      },
      { advance: 250, wait: 260, req: { rules: [WIN], told: true }, expect: { allowed: true } },
      // refused again after its retry-after but within the window: not told again
      { req: { rules: [WIN], told: true }, expect: { allowed: false, notify: false } },
      { advance: 1000, wait: 1010, req: { rules: [WIN], told: true }, expect: { allowed: true } },
      { req: { rules: [WIN], told: true }, expect: { allowed: true }, times: 3 },
      { req: { rules: [WIN], told: true }, expect: { allowed: false, notify: true } },
    ],
  },
  {
    name: 'told keys: the blocker (longest wait) is told, per rule, with a claim in the same call',
    steps: [
      {
        req: { rules: [rule('t-a', 1, 1), rule('t-b', 1, 0.5)], told: true },
        expect: { allowed: true },
      },
      {
        req: {
          rules: [rule('t-a', 1, 1), rule('t-b', 1, 0.5)],
          told: true,
          claim: { id: 'k1', ttlMs: 9000 },
        },
        expect: {
          allowed: false,
          blocker: 't-b',
          retry: { 't-a': 1000, 't-b': 2000 },
          notify: true,
        },
      },
      {
        req: { rules: [rule('t-a', 1, 1)], told: true, claim: { id: 'k2', ttlMs: 9000 } },
        expect: { allowed: false, blocker: 't-a', notify: true },
      },
      {
        req: {
          rules: [rule('t-a', 1, 1), rule('t-b', 1, 0.5)],
          told: true,
          claim: { id: 'k1', ttlMs: 9000 },
        },
        expect: { allowed: true, duplicate: true },
      },
      {
        req: { rules: [rule('t-a', 1, 1), rule('t-b', 1, 0.5)], told: true },
        expect: { allowed: false, blocker: 't-b', notify: false },
      },
    ],
  },
  {
    name: 'told keys on the general path: token bucket and fixed window',
    steps: [
      {
        req: { rules: [], told: true, fuse: { limit: 1, windowMs: 4000 } },
        expect: { allowed: true },
      },
      {
        req: { rules: [TB1], told: true, fuse: { limit: 1, windowMs: 4000 } },
        expect: { allowed: false, blocker: 'fuse', retry: { fuse: 4000 }, notify: true },
      },
      {
        req: { rules: [TB1], told: true, fuse: { limit: 1, windowMs: 4000 } },
        expect: { allowed: false, blocker: 'fuse', ok: { tb: true }, notify: false },
      },
      { req: { rules: [TB1], told: true }, expect: { allowed: true } },
      {
        req: { rules: [TB1], told: true },
        expect: { allowed: false, blocker: 'tb', retry: { tb: 1000 }, notify: true },
      },
    ],
  },
];

function build(
  h: StoreHarness,
  req: Req,
  lease = 'lease',
): { buckets: BucketSpec[]; names: string[] } {
  const buckets: BucketSpec[] = req.rules.map((r) => ({
    ...bucketFor(
      r,
      { key: `${h.prefix}:${r.dimension}:s:${r.action}`, group: h.prefix },
      req.cost ?? 1,
      req.tier ?? 1,
      req.degrade !== undefined,
    ),
    pendingStrikes: req.pending,
    leaseId: r.kind === 'c' ? (req.lease ?? lease) : undefined,
  }));
  const names = req.rules.map((r) => r.name);
  if (req.fuse) {
    buckets.push(
      fuseBucket(
        { key: `${h.prefix}:global:-:fuse`, group: h.prefix },
        req.fuse.limit,
        req.fuse.windowMs,
      ),
    );
    names.push('fuse');
  }
  return { buckets, names };
}

/** The claim and told keys of a step's request, and the longest each may live. */
function extras(h: StoreHarness, req: Req, buckets: BucketSpec[]) {
  return {
    claim: req.claim && { key: `${h.prefix}:claim:t:${req.claim.id}`, ttlMs: req.claim.ttlMs },
    told: req.told ? buckets.map(toldKey) : undefined,
  };
}

function check(d: Decision, names: string[], e: Expect, where: string): void {
  const at = (n: string): number => {
    const i = names.indexOf(n);
    if (i < 0) throw new Error(`${where}: no rule ${n}`);
    return i;
  };
  expect(d.allowed, `${where} allowed`).toBe(e.allowed);
  if (e.blocker !== undefined) expect(names[d.blocker], `${where} blocker`).toBe(e.blocker);
  if (e.allowed) expect(d.blocker, `${where} blocker`).toBe(-1);
  if (e.degraded !== undefined) expect(d.degraded, `${where} degraded`).toBe(e.degraded);
  expect(d.duplicate === true, `${where} duplicate`).toBe(e.duplicate === true);
  expect(d.reentered === true, `${where} reentered`).toBe(e.reentered === true);
  if (e.duplicate || e.reentered) return expect(d.buckets, `${where} nothing decided`).toEqual([]);
  if (e.notify !== undefined) expect(d.notify, `${where} notify`).toBe(e.notify);
  for (const [n, v] of Object.entries(e.remaining ?? {}))
    expect(d.buckets[at(n)]!.remaining, `${where} remaining ${n}`).toBe(v);
  for (const [n, v] of Object.entries(e.retry ?? {}))
    expect(d.buckets[at(n)]!.retryAfterMs, `${where} retry ${n}`).toBe(v);
  for (const [n, v] of Object.entries(e.ok ?? {}))
    expect(d.buckets[at(n)]!.allowed, `${where} ok ${n}`).toBe(v);
  for (const [n, v] of Object.entries(e.limit ?? {}))
    expect(d.buckets[at(n)]!.limit, `${where} limit ${n}`).toBe(v);
  for (const [n, v] of Object.entries(e.wait ?? {}))
    expect(d.buckets[at(n)]!.waitMs ?? 0, `${where} wait ${n}`).toBe(v);
}

/** Declares one `it` per scenario against the store that `make` builds (fresh keys each time). */
export function runStoreScenarios(make: () => Promise<StoreHarness>): void {
  for (const s of SCENARIOS) {
    it(`should pass "${s.name}"`, async () => {
      const h = await make();
      let stepNo = 0;
      const made = new Map<number, { buckets: BucketSpec[]; d: Decision }>();
      for (const step of s.steps) {
        stepNo += 1;
        if (step.settle) {
          const was = made.get(step.settle.step)!;
          await h.store.settle(
            was.buckets.flatMap((b, i) => {
              const o = was.d.buckets[i]!;
              return b.kind === 'k' && o.charged > 0
                ? [
                    {
                      key: b.key,
                      group: b.group,
                      reserved: o.charged,
                      used: step.settle!.used,
                      untilUs: o.untilUs!,
                    },
                  ]
                : [];
            }),
          );
        }
        if (step.advance) h.clock.advance(step.advance);
        if (step.wait) await new Promise((r) => setTimeout(r, step.wait));
        if (step.keep) await h.keepCharge(`${h.prefix}:claim:t:${step.keep}`);
        if (step.releaseAll) {
          const leased = build(h, step.req).buckets.filter((b) => b.kind === 'c');
          await Promise.all(step.releaseAll.map((id) => h.store.release({ id, keys: leased })));
        }
        if (step.together) {
          const reqs = step.together.map((t, i) => {
            const r = build(h, t.req ?? step.req, `lease-${stepNo}-${i}`);
            return { ...r, expect: t.expect };
          });
          const ds = await Promise.all(
            reqs.map((r) =>
              h.store.decide({
                buckets: r.buckets,
                degradeAt: 0,
                degradeFactor: 1,
                degradedHint: false,
              }),
            ),
          );
          ds.forEach((d, i) =>
            check(d, reqs[i]!.names, reqs[i]!.expect, `step ${stepNo}@${i + 1}`),
          );
          made.set(stepNo, { buckets: reqs[0]!.buckets, d: ds[0]! });
          for (const r of reqs)
            for (const b of r.buckets) {
              const ttl = await h.ttl(b.key);
              expect(ttl === -2 || ttl > 0, `${b.key} has a TTL (got ${ttl})`).toBe(true);
            }
          continue;
        }
        if (step.release) {
          const leased = build(h, step.req).buckets.filter((b) => b.kind === 'c');
          await h.store.release({ id: step.release, keys: leased });
        }
        for (let t = 0; t < (step.times ?? 1); t++) {
          const { buckets, names } = build(h, step.req, `lease-${stepNo}-${t}`);
          const { claim, told } = extras(h, step.req, buckets);
          const d = await h.store.decide({
            buckets,
            degradeAt: step.req.degrade?.at ?? 0,
            degradeFactor: step.req.degrade?.factor ?? 1,
            degradedHint: false,
            claim,
            told,
          });
          check(d, names, step.expect, `step ${stepNo}#${t + 1}`);
          if (t === 0) made.set(stepNo, { buckets, d });
          // A claim lives at most its TTL; a told key at most max(retry-after, window) of its bucket's refusal.
          if (claim) {
            const ttl = await h.ttl(claim.key);
            expect(ttl > 0 && ttl <= claim.ttlMs, `${claim.key} TTL (got ${ttl})`).toBe(true);
          }
          for (const [i, key] of (told ?? []).entries()) {
            const ttl = await h.ttl(key);
            const window = bucketTtlMs(buckets[i]!) - TTL_MARGIN_MS;
            const most =
              d.duplicate || d.reentered
                ? Infinity
                : Math.max(1, d.buckets[i]!.retryAfterMs, window);
            expect(ttl === -2 || (ttl > 0 && ttl <= most), `${key} TTL (got ${ttl})`).toBe(true);
          }
          // Every key the decision may have written lives with a TTL (never -1).
          for (const b of buckets) {
            for (const key of [b.key, b.penaltyKey]) {
              if (!key) continue;
              const ttl = await h.ttl(key);
              expect(ttl === -2 || ttl > 0, `${key} has a TTL (got ${ttl})`).toBe(true);
            }
          }
          if (d.allowed)
            for (const b of buckets)
              expect(await h.ttl(b.key), `${b.key} written with a TTL`).toBeGreaterThan(0);
        }
      }
    });
  }
}
