import { Inject, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { RateLimitExtensions, type SubjectContext } from '../extensions/rate-limit-extensions.js';
import { StoreLanes } from '../store/lanes/store-lanes.js';
import { InjectRateLimitSettings } from '../rate-limit.settings.js';
import type { Dimension, RateLimitSettings } from '../rate-limit.types.js';
import { SubjectResolver } from '../subjects/subject-resolver.js';
import { QuotaMetrics } from '../quota.metrics.js';
import { MemoryRiskStore } from '../store/risk/memory-risk.store.js';
import { observeParams } from '../core/risk-params.js';
import { RiskPlanner } from './risk-planner.js';
import type { RiskSink } from '../extensions/risk-sink.js';
import { RISK_STORE, type RiskStore } from '../store/risk/risk-store.js';
import { type ObserveParams } from '../core/risk.types.js';
import type { RiskObservation, RiskSignal } from '../core/risk.types.js';

/** A batch is written as soon as this many observations are queued (bursts: about 1/64 call per update). */
const MAX_BATCH = 64;
/** A signal (a failed or junk answer, never a verified update) is written this soon. */
const SIGNAL_FLUSH_MS = 20;

/**
 * The RiskSink: resolves the request's scored subjects, queues observations
 * and writes them in batches (one script call per batch), never on the
 * request's path: a signal (a failed or junk answer) within SIGNAL_FLUSH_MS;
 * the observations every verified request makes (chat, payload) at most
 * `risk.flushMs` (5 s) later, so a bot at a normal pace costs one decision
 * call per update and one risk write per flush, not per update (their
 * chat_spread and repeated_payload points land within that delay); a batch
 * also goes once MAX_BATCH are queued, and what is queued on shutdown. While Redis is down they go to the
 * memory records (failMode local decides with those); a failed write is
 * counted and dropped (a score is advisory; it never blocks by itself).
 */
@Injectable()
export class RiskRecorder implements RiskSink, OnApplicationShutdown {
  private readonly logger = new Logger('RiskRecorder');
  private readonly queue = new Map<RiskStore, RiskObservation[]>();
  private timer: NodeJS.Timeout | undefined;
  /** When the scheduled flush runs (clock ms), to bring it forward for a signal. */
  private due = 0;
  private readonly params: ObserveParams;

  constructor(
    private readonly planner: RiskPlanner,
    private readonly lanes: StoreLanes,
    private readonly subjects: SubjectResolver,
    private readonly extensions: RateLimitExtensions,
    private readonly memory: MemoryRiskStore,
    private readonly m: QuotaMetrics,
    @Inject(RISK_STORE) private readonly store: RiskStore,
    @InjectRateLimitSettings() private readonly settings: RateLimitSettings,
  ) {
    this.params = observeParams(settings.risk);
  }

  get enabled(): boolean {
    return this.planner.enabled;
  }

  signal(ctx: SubjectContext, signal: RiskSignal, count = 1): void {
    const points = count * this.settings.risk.weights[signal];
    if (points <= 0) return;
    const { keys, store } = this.keys(ctx, this.settings.risk.dimensions as Dimension[]);
    for (const key of keys)
      this.push(store, { kind: 'signal', key, signal, count, points }, SIGNAL_FLUSH_MS);
  }

  payload(ctx: SubjectContext, text: string): void {
    const { keys, store } = this.keys(ctx, ['user', 'app', 'ip']);
    const key = keys[0];
    if (key === undefined) return;
    const hash = createHash('sha256').update(text).digest('base64url').slice(0, 16);
    this.push(
      store,
      { kind: 'payload', key, marker: `${key.replace(':risk:', ':riskp:')}:${hash}` },
      this.settings.risk.flushMs,
    );
  }

  chat(ctx: SubjectContext, chatId: string): void {
    const { keys, store } = this.keys(ctx, ['user']);
    const key = keys[0];
    if (key === undefined) return;
    // The member is the chat's keyed hash, as in bucket keys: no raw chat (in private chats: user) id in Redis.
    const hasher = (this.lanes.current() ?? this.lanes.local()).hasher;
    const member = hasher.part('chat', { value: chatId, personal: true });
    this.push(
      store,
      { kind: 'chat', key, set: key.replace(':risk:', ':riskc:'), member },
      this.settings.risk.flushMs,
    );
  }

  /** Writes what is queued now (tests, shutdown). */
  async flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const batches = [...this.queue];
    this.queue.clear();
    await Promise.all(
      batches.map(async ([store, batch]) => {
        try {
          const n = await store.observe(batch, this.params);
          this.m.riskObserved.inc({ result: 'raised' }, n);
        } catch (err) {
          this.m.riskObserved.inc({ result: 'dropped' }, batch.length);
          this.logger.debug(`risk observations dropped: ${(err as Error).message}`);
        }
      }),
    );
  }

  async onApplicationShutdown(): Promise<void> {
    await this.flush();
  }

  /** Record keys of the request's subjects on `dims` that are scored (enabled, scored dimension). */
  private keys(
    ctx: SubjectContext,
    dims: readonly Dimension[],
  ): { keys: string[]; store: RiskStore } {
    if (!this.planner.enabled) return { keys: [], store: this.memory };
    const lane = this.lanes.current() ?? this.lanes.local();
    const out: string[] = [];
    for (const d of dims) {
      if (!this.settings.risk.dimensions.includes(d)) continue;
      const s = this.subjects.resolve(d, ctx, this.extensions.subject(d));
      if (s) out.push(this.planner.key(this.lanes.tag, d, s, lane.hasher));
    }
    return { keys: out, store: lane.remote ? this.store : this.memory };
  }

  private push(store: RiskStore, o: RiskObservation, withinMs: number): void {
    let q = this.queue.get(store);
    if (!q) this.queue.set(store, (q = []));
    q.push(o);
    if (q.length >= MAX_BATCH) {
      void this.flush();
      return;
    }
    const due = Date.now() + withinMs;
    if (this.timer && this.due <= due) return;
    clearTimeout(this.timer);
    this.due = due;
    this.timer = setTimeout(() => void this.flush(), withinMs);
    this.timer.unref();
  }
}
