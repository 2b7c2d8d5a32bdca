import { describe, expect, it } from 'vitest';
import type { BucketSpec } from '../decision.types.js';
import { bucketTtlMs, decideOne, isLeased, kindOfAlgorithm } from '../rule-kinds.js';
import { concurrency, withoutLease } from './concurrency.js';

const S = 1e6;
const bucket = (capacity: number, leaseId = 'lease-new'): BucketSpec => ({
  key: 'k',
  kind: 'c',
  capacity,
  intervalUs: 10 * S,
  cost: 3,
  shadow: false,
  soft: false,
  degradable: false,
  group: '',
  leaseId,
});

describe('concurrency rule kind', () => {
  it('should be the policy algorithm `concurrency`, leased, with a lease as its key TTL', () => {
    expect(kindOfAlgorithm('concurrency')).toBe(concurrency);
    expect(isLeased({ kind: 'c' })).toBe(true);
    expect(isLeased({ kind: 'g' })).toBe(false);
    expect(bucketTtlMs(bucket(2))).toBe(11_000);
  });

  it('should count only live leases, take one per request whatever its cost, and keep the live ones', () => {
    const leases = { old: 5 * S, a: 20 * S, b: 25 * S };
    const { o, value } = decideOne(bucket(3), leases, 1, 10 * S);
    expect(o).toMatchObject({ allowed: true, remaining: 0, limit: 3, charged: 1, retryAfterMs: 0 });
    expect(value).toEqual({ a: 20 * S, b: 25 * S, 'lease-new': 20 * S });
  });

  it('should refuse at capacity until the first lease expires, at most 1 s', () => {
    const full = { a: 10.3 * S, b: 30 * S };
    expect(decideOne(bucket(2), full, 1, 10 * S).o).toMatchObject({
      allowed: false,
      retryAfterMs: 300,
      charged: 0,
    });
    expect(decideOne(bucket(2), { a: 60 * S, b: 60 * S }, 1, 10 * S).o.retryAfterMs).toBe(1_000);
  });

  it('should decide the same on the script reply (count, first expiry) as on the leases it stands for', () => {
    const leases = { a: 10.3 * S, b: 30 * S };
    const reply = concurrency.fromReply([2, 10.3 * S]);
    for (const cap of [2, 3])
      expect(decideOne(bucket(cap), reply, 1, 10 * S).o).toEqual(
        decideOne(bucket(cap), leases, 1, 10 * S).o,
      );
    expect(decideOne(bucket(1), concurrency.fromReply([0, null]), 1, 0).o.allowed).toBe(true);
  });

  it('should scale the count by multipliers, never below one slot', () => {
    expect(decideOne(bucket(4), undefined, 0.5, 0).o).toMatchObject({ limit: 2, remaining: 1 });
    expect(decideOne(bucket(4), undefined, 0.1, 0).o).toMatchObject({ allowed: true, limit: 1 });
  });

  it('should give one lease back and keep the others', () => {
    expect(withoutLease({ a: 1, b: 2 }, 'a')).toEqual({ b: 2 });
    expect(withoutLease({ a: 1 }, 'a')).toBeUndefined();
    expect(withoutLease({ a: 1 }, 'z')).toEqual({ a: 1 });
  });
});
