import { capacityOf } from '../core/money.js';
import {
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnApplicationShutdown,
} from '@nestjs/common';
import { LockChain } from '../../../chain/lock-chain.service.js';
import { CLOCK, type Clock } from '../../../common/clock.js';
import { StoreLanes } from '../store/lanes/store-lanes.js';
import { InjectRateLimitSettings } from '../rate-limit.settings.js';
import type { RateLimitSettings, RateLimitSlice } from '../rate-limit.types.js';
import { parseRate } from '../core/rate-parse.js';
import { gcraWarm } from '../core/kinds/gcra-warm.js';
import { kindOfAlgorithm } from '../core/rule-kinds.js';
import { type GlobalBucket, LOAD_STORE, type LoadStore } from '../store/load/load-store.js';
import { MemoryLoadStore } from '../store/load/memory-load.store.js';
import {
  LOAD_LEVELS,
  type LoadAction,
  type LoadState,
  healthLevelOf,
  loadAction,
} from '../core/load.types.js';
import { HEALTH_SOURCE, type HealthSource } from './health-source.js';
import { QuotaMetrics } from '../quota.metrics.js';
import {
  type HeartbeatRead,
  type HeartbeatReader,
  HeartbeatRiders,
} from '../../../redis/heartbeat-riders.js';

/** Reads of the level since the last refresh that make the instance busy enough for a call of its own. */
const BUSY_READS = 20;

/** A policy's place in the degrade order and what it does at the current level. */
export interface PolicyLoadView {
  policy: string;
  rank: number;
  critical: boolean;
  action: LoadAction;
  /** Rules ranked apart from their policy that are reduced at this level (e.g. telegram's `ask`). */
  reducedRules: string[];
}

export type LoadView = LoadState & { policies: PolicyLoadView[] };

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
 * With Redis, the instance heartbeat (every `rateLimit.heartbeat`, a call the
 * instance makes anyway) also computes the shared level and hands it here
 * (HeartbeatReader). While those readings arrive, a slow instance asks Redis
 * nothing of its own for the level: its requests are decided with the last
 * beat's (at most one beat old). A busy one (BUSY_READS reads since the last
 * refresh) polls on its tick as before: at most one call per 20 requests, the
 * level as current as `pollMs` under load. A beat that fails brings back the
 * polls above once the last reading is three beats old (an instance is live for three).
 */
@Injectable()
export class LoadMonitor implements OnApplicationBootstrap, OnApplicationShutdown, HeartbeatReader {
  private readonly logger = new Logger('LoadMonitor');
  private current: LoadState = { level: 'normal', fill: 0, reason: 'pressure', at: 0 };
  private timer: NodeJS.Timeout | undefined;
  private failing = false;
  /** A request read the level since the last poll (or none has run yet). */
  private wanted = true;
  private polling = false;
  /** The shared level (bucket fill, held or pinned) as last computed. */
  private shared: Omit<LoadState, 'at'> = { level: 'normal', fill: 0, reason: 'pressure' };
  /** A level raised by this instance's health, kept until `until` (epoch ms). */
  private healthHeld: {
    level: LoadState['level'];
    reason: 'event_loop' | 'latency';
    until: number;
  } = { level: 'normal', reason: 'event_loop', until: 0 };
  /** Reads of the level since the shared level was last refreshed (poll or beat). */
  private reads = 0;
  /** When a heartbeat last brought the shared level (epoch ms; 0 = never). */
  private beatAt = 0;
  private unride: (() => void) | undefined;

  constructor(
    private readonly chain: LockChain,
    private readonly lanes: StoreLanes,
    @Inject(LOAD_STORE) private readonly store: LoadStore,
    private readonly memory: MemoryLoadStore,
    private readonly m: QuotaMetrics,
    @InjectRateLimitSettings() private readonly settings: RateLimitSettings,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(HEALTH_SOURCE) private readonly health: HealthSource,
    private readonly riders: HeartbeatRiders,
  ) {}

  /** The level requests are decided with (marks the instance busy: the next poll runs). */
  get state(): LoadState {
    this.want();
    return this.current;
  }

  /** A reader is here: the next tick polls; after an idle spell, poll at once rather than then. */
  private want(): void {
    this.reads++;
    if (this.wanted) return;
    this.wanted = true;
    if (this.riding()) return; // the last beat's level stands; a busy tick refreshes it
    if (this.clock.now() - this.current.at > 2 * this.settings.load.pollMs && !this.polling)
      void this.poll();
  }

  onApplicationBootstrap(): void {
    this.health.start?.({
      eventLoop: this.settings.load.eventLoopDelay !== undefined,
      latency: this.settings.load.admittedP99 !== undefined,
    });
    this.timer = setInterval(() => void this.tick(), this.settings.load.pollMs);
    this.timer.unref();
    if (this.store.request) {
      this.unride = this.riders.setReader(this);
      // The start's poll stands until the first beat brings the level (no poll for the first request).
      this.beatAt = this.clock.now();
    }
    void this.poll();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
    this.unride?.();
  }

  /** Heartbeats bring the shared level (the last one younger than three beats, jitter and a slow beat aside). */
  private riding(): boolean {
    const beat = this.riders.periodMs;
    return beat !== undefined && this.clock.now() - this.beatAt < 3 * beat;
  }

  /** The level's computation for the heartbeat to carry (Redis lane only). */
  read(): HeartbeatRead | undefined {
    if (!this.lanes.current()?.remote || !this.store.request) return undefined;
    const req = this.store.request(`rl:${this.lanes.tag}:load`, this.globals(), this.settings.load);
    return {
      keys: req.keys,
      args: req.args,
      answered: (reply) => {
        if (reply instanceof Error) return; // polls take over once the last reading is stale
        try {
          this.shared = req.parse(reply);
        } catch {
          return;
        }
        this.beatAt = this.clock.now();
        this.reads = 0;
        this.current = this.withHealth();
        this.show(this.current);
      },
    };
  }

  /** The timer's turn: a poll when a request read the level since the last one. */
  private async tick(): Promise<void> {
    if (this.riding() && !this.polling && this.reads < BUSY_READS) {
      this.wanted = false;
      if (this.healthOn()) this.show((this.current = this.withHealth()));
      return;
    }
    // Not wanted, or a poll a read started just now: no second call in the same interval. The
    // instance's own health is read all the same when it is an input (local, no Redis).
    if (!this.wanted || this.polling) {
      if (!this.polling && this.healthOn()) this.show((this.current = this.withHealth()));
      return;
    }
    if (this.clock.now() - this.current.at < this.settings.load.pollMs / 2) return;
    await this.poll();
  }

  /** One computation (tests call it to skip a wait). */
  async poll(): Promise<LoadState> {
    this.wanted = false;
    this.reads = 0;
    this.polling = true;
    const lane = this.lanes.current();
    const store = lane?.remote ? this.store : this.memory;
    try {
      const got = await store.compute(
        `rl:${this.lanes.tag}:load`,
        this.globals(),
        this.settings.load,
      );
      this.shared = got;
      this.failing = false;
    } catch (err) {
      // Redis failed: the level stays as last computed until the next poll reaches it.
      if (!this.failing) this.logger.warn(`load level not computed: ${(err as Error).message}`);
      this.failing = true;
    } finally {
      this.polling = false;
    }
    this.current = this.withHealth();
    this.show(this.current);
    return this.current;
  }

  private show(state: LoadState): void {
    const view = this.viewOf();
    this.m.show(
      view.level,
      view.fill,
      Object.fromEntries(view.policies.map((p) => [p.policy, p.action])),
      state.health,
    );
  }

  private healthOn(): boolean {
    return (
      this.settings.load.eventLoopDelay !== undefined ||
      this.settings.load.admittedP99 !== undefined
    );
  }

  /** The shared level raised to this instance's health (never above it by a pin: a pin is final). */
  private withHealth(): LoadState {
    const now = this.clock.now();
    const s = this.settings.load;
    const health = this.health.read(s.pollMs);
    const wanted = healthLevelOf(health, s);
    const rank = (l: LoadState['level']): number => LOAD_LEVELS.indexOf(l);
    if (
      wanted.reason &&
      (this.healthHeld.until <= now || rank(wanted.level) >= rank(this.healthHeld.level))
    )
      this.healthHeld = { level: wanted.level, reason: wanted.reason, until: now + s.holdMs };
    const out: LoadState = { ...this.shared, at: now };
    if (s.eventLoopDelay || s.admittedP99) out.health = health;
    const held = this.healthHeld;
    if (s.pin === undefined && held.until >= now && rank(held.level) > rank(out.level)) {
      out.level = held.level;
      out.reason = held.reason;
    }
    return out;
  }

  /** The level and every policy's action at it (a reader: the admin API; see `state`). */
  view(): LoadView {
    this.want();
    return this.viewOf();
  }

  private viewOf(): LoadView {
    const policies: PolicyLoadView[] = [];
    for (const [name, p] of Object.entries(this.chain.current().policies)) {
      const slice = p.locks.rateLimit as RateLimitSlice | undefined;
      const rank = slice?.degradeRank ?? 0;
      const critical = p.critical === true;
      const reducedRules =
        this.current.level === 'soft' && !critical
          ? (slice?.rules ?? [])
              .filter(
                (r) =>
                  r.dimension !== 'global' &&
                  (r.degradeRank ?? rank) >= this.settings.load.reduceFrom,
              )
              .map((r) => `${name}.${r.name}`)
          : [];
      policies.push({
        policy: name,
        rank,
        critical,
        action: loadAction(this.current.level, rank, critical, this.settings.load),
        reducedRules,
      });
    }
    return { ...this.current, policies };
  }

  /** The enforced global buckets of every ranked policy (service hash tag only: one script call). */
  private globals(): GlobalBucket[] {
    const out: GlobalBucket[] = [];
    for (const [policy, p] of Object.entries(this.chain.current().policies)) {
      const slice = p.locks.rateLimit as RateLimitSlice | undefined;
      // Only policies that take part in the degrade order (a degradeRank) are pressure sources.
      if (!slice || slice.mode === 'off' || slice.degradeRank === undefined) continue;
      for (const r of slice.rules ?? []) {
        if (r.dimension !== 'global' || r.mode === 'shadow' || (r.scope ?? 'service') !== 'service')
          continue;
        const rate = parseRate(r.rate);
        if (!rate) continue;
        out.push({
          policy,
          key: `rl:${this.lanes.tag}:global:-:${r.action ?? `${policy}.${r.name}`}`,
          // A warm-up rule keeps a hash (core/kinds/gcra-warm.ts).
          kind: r.warmUp === undefined ? kindOfAlgorithm(r.algorithm).code : gcraWarm.code,
          capacity: capacityOf(r),
          intervalUs: 1e6 / rate,
        });
      }
    }
    return out;
  }
}
