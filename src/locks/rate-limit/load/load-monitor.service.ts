import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { LockChain } from '../../../chain/lock-chain.service.js';
import { CLOCK, type Clock } from '../../../common/clock.js';
import { StoreLanes } from '../store/lanes/store-lanes.js';
import { InjectRateLimitSettings } from '../rate-limit.settings.js';
import type { RateLimitSettings } from '../rate-limit.types.js';
import { type GlobalBucket, LOAD_STORE, type LoadStore } from '../store/load/load-store.js';
import { MemoryLoadStore } from '../store/load/memory-load.store.js';
import type { LoadState } from '../core/load.types.js';
import { globalBuckets } from './global-buckets.js';
import { LoadLevel } from './load-level.js';
import type { LoadView } from './load-view.js';
import { HEALTH_SOURCE, type HealthSource } from './health-source.js';
import { QuotaMetrics } from '../quota.metrics.js';
import { HeartbeatRiders } from '../../../redis/heartbeat-riders.js';
import { LoadBeat } from './load-beat.js';
import { LoadPoll } from './load-poll.js';

/** Reads of the level since the last refresh that make the instance busy enough for a call of its own. */
const BUSY_READS = 20;

export type { LoadView, PolicyLoadView } from './load-view.js';

/**
 * Computes the one load level of the service every `load.pollMs` from the
 * fill of every policy's global bucket (Redis: every instance reads the same
 * buckets and the same held level, so all agree within one poll), and says
 * what each policy does at it. This instance's own health (event-loop delay,
 * p99 of admitted requests) may raise its local level above the shared one,
 * held `holdMs` here only. The limiter reads `state` synchronously.
 *
 * The level matters only to requests: a poll with no read of `state` since
 * the one before is skipped, so an idle instance asks Redis nothing. The
 * first read after an idle spell gets the level last computed and starts a
 * poll at once: the level is current again one round trip later. The health
 * inputs are local: when they are on, an idle tick still reads them (no Redis).
 *
 * With Redis, the instance heartbeat also brings the shared level (LoadBeat); while it does, a
 * slow instance makes no call of its own for it, a busy one (BUSY_READS) still polls on its tick.
 */
@Injectable()
export class LoadMonitor implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly level: LoadLevel;
  private timer: NodeJS.Timeout | undefined;
  /** A request read the level since the last poll (or none has run yet). */
  private wanted = true;
  private polling = false;
  /** Reads of the level since the shared level was last refreshed (poll or beat). */
  private reads = 0;
  private readonly beat: LoadBeat;
  private readonly own: LoadPoll;
  /** The enforced global buckets of every ranked policy (service hash tag only: one script call). */
  private readonly globals: () => GlobalBucket[];

  constructor(
    chain: LockChain,
    lanes: StoreLanes,
    @Inject(LOAD_STORE) store: LoadStore,
    memory: MemoryLoadStore,
    m: QuotaMetrics,
    @InjectRateLimitSettings() private readonly settings: RateLimitSettings,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(HEALTH_SOURCE) private readonly health: HealthSource,
    riders: HeartbeatRiders,
  ) {
    this.level = new LoadLevel(chain, m, settings, clock, health);
    this.globals = () => globalBuckets(chain.current().policies, lanes.tag);
    this.own = new LoadPoll(lanes, store, memory, settings, this.globals);
    this.beat = new LoadBeat(riders, lanes, store, settings, clock, this.globals, (shared) => {
      this.level.shared = shared;
      this.reads = 0;
      this.level.refresh();
    });
  }

  /** The level requests are decided with (marks the instance busy: the next poll runs). */
  get state(): LoadState {
    this.want();
    return this.level.current;
  }

  /** A reader is here: the next tick polls; after an idle spell, poll at once rather than then. */
  private want(): void {
    this.reads++;
    if (this.wanted) return;
    this.wanted = true;
    if (this.beat.riding()) return; // the last beat's level stands; a busy tick refreshes it
    if (this.clock.now() - this.level.current.at > 2 * this.settings.load.pollMs && !this.polling)
      void this.poll();
  }

  onApplicationBootstrap(): void {
    this.health.start?.({
      eventLoop: this.settings.load.eventLoopDelay !== undefined,
      latency: this.settings.load.admittedP99 !== undefined,
    });
    this.timer = setInterval(() => void this.tick(), this.settings.load.pollMs);
    this.timer.unref();
    this.beat.start();
    void this.poll();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
    this.beat.stop();
  }

  /** The timer's turn: a poll when a request read the level since the last one. */
  private async tick(): Promise<void> {
    if (this.beat.riding() && !this.polling && this.reads < BUSY_READS) {
      this.wanted = false;
      if (this.level.healthOn()) this.level.refresh();
      return;
    }
    // Not wanted, or a poll a read started just now: no second call in the same interval. The
    // instance's own health is read all the same when it is an input (local, no Redis).
    if (!this.wanted || this.polling) {
      if (!this.polling && this.level.healthOn()) this.level.refresh();
      return;
    }
    if (this.clock.now() - this.level.current.at < this.settings.load.pollMs / 2) return;
    await this.poll();
  }

  /** One computation (tests call it to skip a wait). */
  async poll(): Promise<LoadState> {
    this.wanted = false;
    this.reads = 0;
    this.polling = true;
    try {
      const got = await this.own.compute();
      if (got) this.level.shared = got;
    } finally {
      this.polling = false;
    }
    return this.level.refresh();
  }

  /** Whether this instance's own health held a level at soft or above now (reads nothing, wants no poll). */
  ownHealthHot(): boolean {
    return this.level.ownHealthHot();
  }

  /** The level and every policy's action at it (a reader: the admin API; see `state`). */
  view(): LoadView {
    this.want();
    return this.level.view();
  }
}
