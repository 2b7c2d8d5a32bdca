import { Logger } from '@nestjs/common';
import type { Clock } from '../../../common/clock.js';
import type { RedisService } from '../../../redis/redis.service.js';
import type { PartitionOwners } from './partition-owners.js';

/** The sorted set of the workers alive (lua/telegram_workers_beat.lua). */
export const rosterKey = (base: string): string => `tgo:{${base}}:workers`;
/** The channel a change of the roster is announced on: every worker beats at once and shares out again. */
export const rosterChannel = (base: string): string => `tgo:{${base}}:roster`;

/** How often a worker beats and how long it is alive without a beat, from the lease (milliseconds). */
export function rosterTimes(leaseMs: number): { beatMs: number; liveMs: number } {
  // A dead worker's partitions change hands within half a lease (3 beats missed): before the lanes it held
  // are due again, so their new owner knows of them when they are.
  const liveMs = Math.max(300, Math.floor(leaseMs / 2));
  return { beatMs: Math.floor(liveMs / 3), liveMs };
}

/**
 * The roster of the outbound workers alive, in Redis: each worker beats (one script call every `beatMs`),
 * and shares the queue's partitions out from the answer (PartitionOwners). A worker that joins or stops,
 * or one found dead (no beat for `liveMs`), is announced on the roster channel, and every worker beats
 * again at once. A failed beat keeps the last share-out (the others' beats decide without this one).
 */
export class RedisWorkerRoster {
  private readonly log = new Logger('TelegramOutbound');
  private timer?: NodeJS.Timeout;
  private beating?: Promise<void>;
  /** The last beat failed (logged once until one succeeds again). */
  private failing = false;

  constructor(
    private readonly redis: Pick<RedisService, 'script'>,
    private readonly base: string,
    private readonly owners: PartitionOwners,
    private readonly clock: Clock,
    private readonly times: { beatMs: number; liveMs: number },
    /** Called with the partitions this worker gained (to claim from them at once). */
    private readonly gained: (partitions: number[]) => void,
  ) {}

  start(): void {
    if (this.timer) return;
    void this.beat();
    this.timer = setInterval(() => void this.beat(), this.times.beatMs);
    this.timer.unref();
  }

  /** Beats now (concurrent calls share one) and shares the partitions out again. */
  beat(): Promise<void> {
    this.beating ??= this.call('beat').finally(() => (this.beating = undefined));
    return this.beating;
  }

  /** Leaves the roster (a worker that stops): the others take its partitions over at once. */
  async stop(): Promise<void> {
    if (!this.timer) return;
    clearInterval(this.timer);
    this.timer = undefined;
    await this.beating;
    await this.call('leave');
  }

  private async call(op: 'beat' | 'leave'): Promise<void> {
    try {
      const r = await this.redis.script<string[]>(
        'telegram_workers_beat',
        [rosterKey(this.base)],
        [this.owners.self, this.clock.now(), this.times.liveMs, op, rosterChannel(this.base)],
      );
      this.failing = false;
      if (op === 'leave') return;
      const gained = this.owners.assign(r.filter((_, i) => i % 2 === 0));
      if (gained.length > 0) this.gained(gained);
    } catch (err) {
      if (!this.failing) this.log.warn(`worker roster ${op} failed: ${(err as Error).message}`);
      this.failing = true;
    }
  }
}
