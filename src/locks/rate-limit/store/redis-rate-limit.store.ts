import { type Clock, systemClock } from '../../../common/clock.js';
import { gcra as GCRA } from '../core/kinds/gcra.js';
import { concurrency } from '../core/kinds/concurrency.js';
import { tokens } from '../core/kinds/tokens.js';
import { CrossSlotDecider, claimGroup, groupBy } from './cross-slot.js';
import type { Lease, RateLimitStore, Settlement } from './rate-limit.store.js';
import { type BucketSpec, Decision, DecideRequest } from '../core/decision.types.js';
import { SameTurnBatcher } from './redis-batcher.js';
import { decideCall } from './redis-decide-call.js';
import { clockArgs, paced } from './redis-script-args.js';
import { RedisSettlements } from './redis-settlements.js';
import type { Argv, RedisStoreOptions, ScriptRunner } from './redis-store.options.js';
import type { UsageWrite } from '../core/usage-keys.js';

/** Kinds the batch script decides: GCRA and the hash kinds of leases and reservations (lib/kind_*.lua). */
const BATCHED = new Set<string>([GCRA.code, concurrency.code, tokens.code]);

/** A bucket the batch script takes: one of those kinds, without penalty, not paced. */
const batchable = (b: BucketSpec): boolean =>
  BATCHED.has(b.kind) && !(b.penaltyKey && b.penalty) && !paced(b);

/** Every bucket GCRA without penalty nor pacing: the fast path of `ratelimit_decide` (paced: the general path). */
const allGcra = (req: DecideRequest): boolean =>
  req.buckets.every((b) => b.kind === GCRA.code && !(b.penaltyKey && b.penalty) && !paced(b));

/**
 * Rate-limit state in Redis: ONE `ratelimit_decide` call per request when
 * every key shares a hash slot (the default `{<env>:<service>}` tag); the
 * fast-path decisions (GCRA, no penalty, risk-scored or not) that arrive in one event-loop turn
 * share ONE `ratelimit_decide_batch` call per slot (redis-batcher.ts). Under
 * Redis Cluster, buckets of other slots (`scope: subject`) are decided per
 * slot with reserve + refund (cross-slot.ts, which states the bound on error). Releases and settlements:
 * redis-settlements.ts; one request's own call: redis-decide-call.ts.
 */
export class RedisRateLimitStore implements RateLimitStore {
  private readonly appClock: Clock;
  private readonly batcher: SameTurnBatcher | undefined;
  private readonly slots: CrossSlotDecider;
  private readonly writes: RedisSettlements;

  constructor(
    private readonly redis: ScriptRunner,
    private readonly opts: RedisStoreOptions,
  ) {
    this.appClock = opts.appClock ?? systemClock;
    this.writes = new RedisSettlements(redis, opts);
    const clock = (): Argv => clockArgs(this.appClock, opts.clock);
    const batch = opts.batch ?? 'auto';
    if (batch !== 'off') {
      this.batcher = new SameTurnBatcher(redis, {
        cluster: opts.cluster,
        maxBatch: opts.maxBatch,
        mode: batch,
        clockArgs: clock,
        single: (req) => this.single(req, allGcra(req) && !req.risk?.keys.length),
      });
    }
    this.slots = new CrossSlotDecider(redis, {
      deadlineMs: opts.deadlineMs,
      onRefund: opts.onRefund,
      clockArgs: clock,
      decideSlot: (req) => this.decideSlot(req),
    });
  }

  decide(req: DecideRequest): Promise<Decision> {
    if (!this.opts.cluster) return this.decideSlot(req);
    const groups = groupBy(req.buckets);
    const one =
      groups.length === 1 &&
      (!req.claim || req.buckets[0]!.group === claimGroup(req.claim.key)) &&
      (!req.risk?.keys.length || req.buckets[0]!.group === claimGroup(req.risk.keys[0]!));
    return one || groups.length === 0 ? this.decideSlot(req) : this.slots.decide(req, groups);
  }

  /** Releases batched per turn and hash slot (redis-settlements.ts). */
  release(lease: Lease): Promise<void> {
    return this.writes.release(lease);
  }

  /** Settlements and usage writes batched per turn and hash slot (redis-settlements.ts). */
  settle(items: readonly Settlement[], usage: readonly UsageWrite[] = []): Promise<void> {
    return this.writes.settle(items, usage);
  }

  /** At shutdown (before Redis closes): the buffered usage writes are sent. */
  beforeApplicationShutdown(): void {
    this.writes.close();
  }

  /** Usage bucket hashes in one `ratelimit_usage_read` call (the keys share the service tag). */
  async readUsage(keys: readonly string[]): Promise<Record<string, string>[]> {
    if (keys.length === 0) return [];
    const out = await this.redis.script<string[][]>('ratelimit_usage_read', keys, []);
    return out.map((flat) => {
      const h: Record<string, string> = {};
      for (let i = 0; i + 1 < flat.length; i += 2) h[flat[i]!] = flat[i + 1]!;
      return h;
    });
  }

  /**
   * Buckets of one hash slot: batched when they are all GCRA without penalty (risk-scored or not), else their
   * own call (the fast path of `ratelimit_decide` when unscored too).
   */
  private decideSlot(sub: DecideRequest): Promise<Decision> {
    const fast = this.opts.fastPath !== false && sub.buckets.length > 0;
    if (fast && this.batcher && sub.buckets.every(batchable)) return this.batcher.enqueue(sub);
    return this.single(sub, fast && allGcra(sub) && !sub.risk?.keys.length);
  }

  /** One request's own `ratelimit_decide` call (redis-decide-call.ts). */
  private single(sub: DecideRequest, fast: boolean): Promise<Decision> {
    return decideCall(this.redis, sub, fast, this.appClock, this.opts.clock);
  }
}
