import { replyDeadline } from '../../../redis/reply-deadline.js';
import {
  type BucketSpec,
  type Decision,
  type DecideRequest,
  undecided,
} from '../core/decision.types.js';
import { refundArgs } from './redis-script-args.js';
import type { Argv, RedisStoreOptions, ScriptRunner } from './redis-store.options.js';
import { claimGroup, mergeSlots, overallBlocker, slotRequest } from './slot-groups.js';

// The grouping by slot lives in slot-groups.ts; re-exported for the store.
export { claimGroup, groupBy } from './slot-groups.js';

/**
 * One request whose buckets live in several Redis Cluster slots (`scope:
 * subject`): decided per slot in parallel, each slot reserving its charge;
 * when any slot refuses, the slots that charged are refunded
 * (`ratelimit_refund`). Bound on error: the refund never over-admits; between
 * reserve and refund (one round trip) other requests may see up to the
 * reserved tokens missing, and if the refund itself fails those tokens come
 * back only by refill (cost × interval).
 */
export class CrossSlotDecider {
  constructor(
    private readonly redis: ScriptRunner,
    private readonly opts: Pick<RedisStoreOptions, 'deadlineMs' | 'onRefund'> & {
      clockArgs: () => Argv;
      /** Decides the buckets of one slot as a request of their own. */
      decideSlot: (req: DecideRequest) => Promise<Decision>;
    },
  ) {}

  /**
   * With a claim, the claim's slot (the service tag) is decided first, carrying the claim (an empty group when no
   * bucket lives there): a duplicate (or a re-entry on a kept charge) ends the request before any other slot is
   * charged.
   */
  async decide(req: DecideRequest, groups: number[][]): Promise<Decision> {
    const work = this.decideSlots(req, groups);
    if (!this.opts.deadlineMs) return work;
    // Several calls must not add up past the command timeout: past it the request is decided by the
    // failMode; a reservation that lands later comes back by refill (the bound documented above).
    return replyDeadline(
      work,
      this.opts.deadlineMs,
      'ratelimit_decide',
      `multi-slot decision over ${this.opts.deadlineMs} ms`,
    );
  }

  private async decideSlots(req: DecideRequest, all: number[][]): Promise<Decision> {
    let groups = all;
    let soft = -1;
    if (req.claim) {
      const tag = claimGroup(req.claim.key);
      soft = groups.findIndex((g) => req.buckets[g[0]!]!.group === tag);
      if (soft < 0) [groups, soft] = [[[], ...groups], 0];
    } else if (req.degradeAt > 0) {
      // The slot holding the global soft bucket goes first, so the others know whether the request is degraded.
      soft = groups.findIndex((g) => g.some((i) => req.buckets[i]!.soft));
    }
    const first = soft >= 0 ? await Promise.allSettled([this.call(req, groups[soft]!, true)]) : [];
    if (first[0]?.status === 'fulfilled' && undecided(first[0].value)) return first[0].value;
    const hint =
      first[0]?.status === 'fulfilled' ? { ...req, degradedHint: first[0].value.degraded } : req;
    const rest = await Promise.allSettled(
      groups.map((idx, g) => (g === soft ? undefined : this.call(hint, idx))),
    );
    const settled = rest.map((r, g) =>
      g === soft ? first[0]! : r,
    ) as PromiseSettledResult<Decision>[];
    const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    if (failed) {
      // Give back what the slots that answered reserved, then report the failure (the policy's failMode decides).
      const ok = settled.map((s) => (s.status === 'fulfilled' ? s.value : undefined));
      await this.refund(req, groups, ok);
      throw failed.reason;
    }
    const parts = settled.map((s) => (s as PromiseFulfilledResult<Decision>).value);
    const { allowed, degraded, nowMs, buckets } = mergeSlots(req.buckets.length, groups, parts);
    let blocker = -1;
    if (!allowed) {
      await this.refund(req, groups, parts);
      for (const o of buckets) o.charged = 0;
      blocker = overallBlocker(req, buckets);
    }
    // Each refusing slot set its own blocker's told key; notify is that of the slot holding the overall blocker.
    const notify =
      blocker >= 0 && req.told
        ? parts[groups.findIndex((g) => g.includes(blocker))]!.notify === true
        : undefined;
    return { allowed, blocker, degraded, nowMs, buckets, notify };
  }

  /** The buckets `idx` of one slot, decided as a request of their own (`claim`: with the claim); blocker mapped back. */
  private async call(req: DecideRequest, idx: number[], claim = false): Promise<Decision> {
    const d = await this.opts.decideSlot(slotRequest(req, idx, claim));
    if (d.blocker >= 0) d.blocker = idx[d.blocker]!;
    return d;
  }

  private async refund(
    req: DecideRequest,
    groups: number[][],
    parts: (Decision | undefined)[],
  ): Promise<void> {
    await Promise.all(
      parts.map(async (d, g) => {
        if (!d?.allowed) return;
        const charged: { b: BucketSpec; charged: number }[] = [];
        groups[g]!.forEach((bi, j) => {
          const o = d.buckets[j]!;
          if (o.charged > 0) charged.push({ b: req.buckets[bi]!, charged: o.charged });
        });
        if (charged.length === 0) return;
        const { keys, args } = refundArgs(charged, this.opts.clockArgs());
        this.opts.onRefund?.(keys.length);
        // A failed refund is not retried: the tokens come back by refill (see the class comment).
        await this.redis.script('ratelimit_refund', keys, args).catch(() => undefined);
      }),
    );
  }
}
