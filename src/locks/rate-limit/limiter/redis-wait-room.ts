import { Inject, Injectable, OnModuleDestroy } from '@nestjs/common';
import type { LockContext } from '../../../chain/lock.types.js';
import { CLOCK, type Clock } from '../../../common/clock.js';
import { InjectRateLimitSettings } from '../rate-limit.settings.js';
import type { RateLimitSettings } from '../rate-limit.types.js';
import { RateLimitMetrics } from '../rate-limit.metrics.js';
import type { CompiledFailQueue } from '../settings/fail-queue.validate.js';
import { Lane, StoreLanes } from '../store/lanes/store-lanes.js';

/** Longest pause between two looks at the store lanes while requests wait (no Redis call: a flag and a time). */
const LOOK_EVERY_MS = 25;

interface Waiter {
  deadline: number;
  policy: string;
  app: string;
  done: (lane: Lane | undefined) => void;
}

/**
 * failMode `queue`: requests wait, in arrival order, for Redis to come back (the store lanes say when),
 * each until its deadline; then they are decided on Redis, or by the policy's fallback. At most
 * `failQueueMax` wait on an instance, and at most `failQueuePerApp` of one app (the verified appId; unsigned
 * requests count as one app): past that a request gets the fallback at once. A request keeps
 * the deadline of its first wait, so a probe that fails again cannot make it wait twice. Nothing runs
 * while nobody waits.
 */
@Injectable()
export class RedisWaitRoom implements OnModuleDestroy {
  private readonly waiters: Waiter[] = [];
  /** The first deadline of each request that waited (weak: gone with the request). */
  private readonly deadlines = new WeakMap<object, number>();
  /** Requests waiting per app (an app with none has no entry). */
  private readonly perApp = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly lanes: StoreLanes,
    private readonly m: RateLimitMetrics,
    @InjectRateLimitSettings() private readonly settings: RateLimitSettings,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** The lane to decide on when Redis answers within the wait; undefined when the fallback decides. */
  wait(ctx: LockContext, policy: string, q: CompiledFailQueue): Promise<Lane | undefined> {
    const now = this.clock.now();
    let deadline = this.deadlines.get(ctx);
    if (deadline === undefined) this.deadlines.set(ctx, (deadline = now + q.maxWaitMs));
    if (now >= deadline) return this.fallback(policy, 'fallback');
    const app = ctx.state.appId ?? '';
    const mine = this.perApp.get(app) ?? 0;
    if (this.waiters.length >= this.settings.failQueueMax || mine >= this.settings.failQueuePerApp)
      return this.fallback(policy, 'full');
    this.perApp.set(app, mine + 1);
    return new Promise((done) => {
      this.waiters.push({ deadline, policy, app, done });
      this.m.failQueueWaiting.set(this.waiters.length);
      this.schedule();
    });
  }

  /** Requests waiting now. */
  get waiting(): number {
    return this.waiters.length;
  }

  onModuleDestroy(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.perApp.clear();
    for (const w of this.waiters.splice(0)) w.done(undefined);
  }

  private gone(w: Waiter): void {
    const mine = (this.perApp.get(w.app) ?? 1) - 1;
    if (mine > 0) this.perApp.set(w.app, mine);
    else this.perApp.delete(w.app);
  }

  private fallback(policy: string, outcome: 'fallback' | 'full'): Promise<undefined> {
    this.m.failQueue.inc({ policy, outcome });
    return Promise.resolve(undefined);
  }

  private schedule(): void {
    if (this.timer !== undefined || this.waiters.length === 0) return;
    const next = Math.min(LOOK_EVERY_MS, this.settings.probeAfterMs);
    this.timer = setTimeout(() => this.look(), next);
    this.timer.unref();
  }

  /** Redis back: every waiter goes, in order. Else the ones past their deadline go to the fallback. */
  private look(): void {
    this.timer = undefined;
    const lane = this.lanes.current();
    const now = this.clock.now();
    const keep: Waiter[] = [];
    for (const w of this.waiters.splice(0)) {
      if (lane) {
        this.m.failQueue.inc({ policy: w.policy, outcome: 'redis' });
        this.gone(w);
        w.done(lane);
      } else if (now >= w.deadline) {
        this.m.failQueue.inc({ policy: w.policy, outcome: 'fallback' });
        this.gone(w);
        w.done(undefined);
      } else keep.push(w);
    }
    this.waiters.push(...keep);
    this.m.failQueueWaiting.set(this.waiters.length);
    this.schedule();
  }
}
