import type { UsageWrite } from '../core/usage-keys.js';
import type { Lease, Settlement } from './rate-limit.store.js';
import type { RedisStoreOptions, ScriptRunner } from './redis-store.options.js';
import { type SettleOp, settleCall } from './settle-args.js';
import { TurnBatcher } from './turn-batcher.js';
import { UsageBuffer } from './usage-buffer.js';

/**
 * What RedisRateLimitStore writes after a decision: lease releases, settlements of reservations and
 * usage writes, each batched per event-loop turn and hash slot (turn-batcher.ts, usage-buffer.ts).
 */
export class RedisSettlements {
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
    private readonly opts: Pick<RedisStoreOptions, 'cluster'>,
  ) {}

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

  /** The buffered usage writes are sent (at shutdown, before Redis closes). */
  close(): void {
    this.usage.close();
  }

  /** The batchers' slot of a hash-tag group: every group is one slot on a standalone Redis. */
  private slotOf(group: string): string {
    return this.opts.cluster ? group : '';
  }
}
