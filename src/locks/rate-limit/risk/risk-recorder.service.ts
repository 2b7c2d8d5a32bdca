import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
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
import { RiskBatches } from './risk-batches.js';
import type { RiskSink } from '../extensions/risk-sink.js';
import { RISK_STORE, type RiskStore } from '../store/risk/risk-store.js';
import { HeartbeatRiders } from '../../../redis/heartbeat-riders.js';
import type { RiskSignal } from '../core/risk.types.js';

/** A signal (a failed or junk answer, never a verified update) is written this soon. */
const SIGNAL_FLUSH_MS = 20;

/**
 * The RiskSink: resolves the request's scored subjects, queues observations
 * and writes them in batches, never on the request's path: a signal (a failed
 * or junk answer) within SIGNAL_FLUSH_MS, in a script call of its own; the
 * observations every verified request makes (chat, payload) ride on the next
 * instance heartbeat (HeartbeatRiders, every `rateLimit.heartbeat` = 4 s), so
 * a verified update costs its decision call and nothing more at any pace
 * (their chat_spread and repeated_payload points land within one beat); where
 * there is no heartbeat, or it is slower than `risk.flushMs`, within
 * `risk.flushMs` on a timer. A batch also goes at once when MAX_BATCH entries
 * are queued (bursts: 1/64 call per update; a signal repeated on one record is
 * one entry), and what is queued on shutdown.
 * While Redis is down they go to the memory records (failMode local decides
 * with those); a failed write is counted and dropped (a score is advisory).
 */
@Injectable()
export class RiskRecorder implements RiskSink, OnApplicationShutdown {
  private readonly batches: RiskBatches;

  constructor(
    private readonly planner: RiskPlanner,
    private readonly lanes: StoreLanes,
    private readonly subjects: SubjectResolver,
    private readonly extensions: RateLimitExtensions,
    private readonly memory: MemoryRiskStore,
    m: QuotaMetrics,
    @Inject(RISK_STORE) private readonly store: RiskStore,
    @InjectRateLimitSettings() private readonly settings: RateLimitSettings,
    riders: HeartbeatRiders,
  ) {
    this.batches = new RiskBatches(store, observeParams(settings.risk), riders, m);
  }

  get enabled(): boolean {
    return this.planner.enabled;
  }

  signal(ctx: SubjectContext, signal: RiskSignal, count = 1): void {
    const points = count * this.settings.risk.weights[signal];
    if (points <= 0) return;
    const { keys, store } = this.keys(ctx, this.settings.risk.dimensions as Dimension[]);
    for (const key of keys)
      this.batches.push(store, { kind: 'signal', key, signal, count, points }, SIGNAL_FLUSH_MS);
  }

  payload(ctx: SubjectContext, text: string): void {
    const { keys, store } = this.keys(ctx, ['user', 'app', 'ip']);
    const key = keys[0];
    if (key === undefined) return;
    const hash = createHash('sha256').update(text).digest('base64url').slice(0, 16);
    this.batches.push(
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
    this.batches.push(
      store,
      { kind: 'chat', key, set: key.replace(':risk:', ':riskc:'), member },
      this.settings.risk.flushMs,
    );
  }

  /** Writes what is queued now (tests, shutdown). */
  flush(): Promise<void> {
    return this.batches.flush();
  }

  async onApplicationShutdown(): Promise<void> {
    this.batches.unride();
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
}
