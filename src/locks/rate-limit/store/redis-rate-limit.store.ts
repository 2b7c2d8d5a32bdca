import { type Clock, systemClock } from '../../../common/clock.js';
import { RedisScriptError } from '../../../redis/redis.errors.js';
import { BucketState, decideBuckets } from '../core/bucket-math.js';
import { gcra as GCRA } from '../core/kinds/gcra.js';
import { ruleKind } from '../core/rule-kinds.js';
import { concurrency } from '../core/kinds/concurrency.js';
import { tokens } from '../core/kinds/tokens.js';
import { CrossSlotDecider, claimGroup, groupBy } from './cross-slot.js';
import type { Lease, RateLimitStore, Settlement } from './rate-limit.store.js';
import {
  type BucketSpec,
  Decision,
  DecideRequest,
  duplicateDecision,
  reenteredDecision,
} from '../core/decision.types.js';
import { SameTurnBatcher, riskStateAt } from './redis-batcher.js';
import { TurnBatcher } from './turn-batcher.js';
import { UsageBuffer } from './usage-buffer.js';
import { clockArgs, fastArgs, generalArgs, paced } from './redis-script-args.js';
import type { Argv, RedisStoreOptions, ScriptRunner } from './redis-store.options.js';
import type { RiskState } from '../core/risk.types.js';
import type { UsageWrite } from '../core/usage-keys.js';
import { type SettleOp, settleCall } from './settle-args.js';

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
 * slot with reserve + refund (cross-slot.ts, which states the bound on error).
 */
export class RedisRateLimitStore implements RateLimitStore {
  private readonly appClock: Clock;
  private readonly batcher: SameTurnBatcher | undefined;
  private readonly slots: CrossSlotDecider;
  private readonly releases = new TurnBatcher<{ key: string; id: string }>((list) =>
    this.redis.script(
      'ratelimit_release',
      list.map((l) => l.key),
      list.map((l) => l.id),
    ),
  );
  private readonly settlements = new TurnBatcher<SettleOp>((ops) => {
    const { keys, args } = settleCall(ops);
    return this.redis.script('ratelimit_settle', keys, args);
  });
  private readonly usage = new UsageBuffer((slot, writes) =>
    this.settlements.add(
      slot,
      writes.map((u) => ({ u })),
    ),
  );

  constructor(
    private readonly redis: ScriptRunner,
    private readonly opts: RedisStoreOptions,
  ) {
    this.appClock = opts.appClock ?? systemClock;
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

  /**
   * The releases of one event-loop turn go in ONE `ratelimit_release` call per hash slot (one slot unless
   * `scope: subject`).
   */
  async release(lease: Lease): Promise<void> {
    const slots = new Map<string, { key: string; id: string }[]>();
    for (const k of lease.keys) {
      const list = slots.get(k.group);
      if (list) list.push({ key: k.key, id: lease.id });
      else slots.set(k.group, [{ key: k.key, id: lease.id }]);
    }
    await Promise.all([...slots].map(([g, list]) => this.releases.add(this.slotOf(g), list)));
  }

  /**
   * The settlements of one event-loop turn go in ONE `ratelimit_settle` call per hash slot, their usage writes with
   * them (the service tag's slot: the same call unless every reservation is `scope: subject` under Cluster).
   */
  async settle(items: readonly Settlement[], usage: readonly UsageWrite[] = []): Promise<void> {
    const slots = new Map<string, SettleOp[]>();
    const ops: SettleOp[] = [...items.map((s) => ({ s })), ...usage.map((u) => ({ u }))];
    // Usage alone (no tokens rule): buffered, to ride in a settlement call (usage-buffer.ts).
    const alone = items.length === 0;
    for (const op of ops) {
      const g = alone ? this.slotOf(op.u!.group) : (op.s ?? op.u).group;
      const list = slots.get(g);
      if (list) list.push(op);
      else slots.set(g, [op]);
    }
    if (alone)
      return void (await Promise.all(
        [...slots].map(([slot, list]) =>
          this.usage.add(
            slot,
            list.map((o) => o.u!),
          ),
        ),
      ));
    await Promise.all(
      [...slots].map(([g, list]) => {
        const slot = this.slotOf(g);
        const ride = this.usage.take(slot);
        const call = this.settlements.add(
          slot,
          ride ? [...list, ...ride.writes.map((u) => ({ u }))] : list,
        );
        ride?.carried(call);
        return call;
      }),
    );
  }

  /** At shutdown (before Redis closes): the buffered usage writes are sent. */
  beforeApplicationShutdown(): void {
    this.usage.close();
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

  /** The batchers' slot of a hash-tag group: every group is one slot on a standalone Redis. */
  private slotOf(group: string): string {
    return this.opts.cluster ? group : '';
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

  /**
   * One `ratelimit_decide` call for one request's buckets (one hash slot). The script decides and writes, and
   * returns the state it read; the figures come from bucket-math.ts on that state (the same arithmetic),
   * checked against the script's own allowed / degraded.
   */
  private async single(sub: DecideRequest, fast: boolean): Promise<Decision> {
    const { buckets } = sub;
    const clock = clockArgs(this.appClock, this.opts.clock);
    const { keys, args, penalties } = fast ? fastArgs(sub, clock) : generalArgs(sub, clock);
    const out = await this.redis.script<(string | number | null)[]>('ratelimit_decide', keys, args);
    if (out[0] === 'dup') return duplicateDecision(this.appClock.now());
    if (out[0] === 'again') return reenteredDecision(this.appClock.now());
    // Reply: the string kinds' values (bucket order), penalty strike TATs, then the hash kinds' fields.
    const state: BucketState[] = new Array<BucketState>(buckets.length);
    const kinds = buckets.map((b) => ruleKind(b.kind));
    let o = 0;
    for (let i = 0; i < buckets.length; i++)
      if (kinds[i]!.fields.length === 0) state[i] = { value: kinds[i]!.fromReply([out[o++]]) };
    for (let i = 0; i < buckets.length && penalties > 0; i++) {
      const b = buckets[i]!;
      if (!b.penaltyKey || !b.penalty) continue;
      const p = out[o++];
      (state[i] ??= {}).penaltyTat = p === null ? undefined : Number(p);
    }
    for (let i = 0; i < buckets.length; i++) {
      const n = kinds[i]!.fields.length;
      if (n === 0) continue;
      (state[i] ??= {}).value = kinds[i]!.fromReply(out.slice(o, (o += n)));
    }
    // Risk records ('x' only): s, f, t, r per record.
    const risk: RiskState[] = [];
    for (let j = 0; j < (fast ? 0 : (sub.risk?.keys.length ?? 0)); j++, o += 4)
      risk.push(riskStateAt(out, o));
    const d = decideBuckets(sub, state, out[o] as number, undefined, risk);
    const blocker = sub.told && !d.allowed ? d.blocker : -1;
    if (
      d.allowed !== (out[o + 1] === 1) ||
      d.degraded !== (out[o + 2] === 1) ||
      blocker !== out[o + 4]
    ) {
      throw new RedisScriptError(
        'ratelimit_decide',
        `the script decided allowed=${out[o + 1]} degraded=${out[o + 2]} blocker=${out[o + 4]}, bucket-math.ts on the same state allowed=${d.allowed} degraded=${d.degraded} blocker=${blocker}`,
      );
    }
    if (sub.told && !d.allowed) d.notify = out[o + 3] === 1;
    return d;
  }
}
