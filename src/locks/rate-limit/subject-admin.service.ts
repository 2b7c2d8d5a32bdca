import { Inject, Injectable } from '@nestjs/common';
import { capacityOf } from './core/money.js';
import { LockChain } from '../../chain/lock-chain.service.js';
import { CLOCK, type Clock } from '../../common/clock.js';
import { ProblemException } from '../../common/problem.exception.js';
import { addressGroup } from '../../http/cidr.js';
import { parseRate } from './core/rate-parse.js';
import { StoreLanes } from './store/lanes/store-lanes.js';
import { LoadMonitor, type LoadView } from './load/load-monitor.service.js';
import type { EffectiveQuota, RateLimitAdminPort, SubjectRiskView } from './rate-limit.admin.js';
import { InjectRateLimitSettings } from './rate-limit.settings.js';
import { DIMENSIONS, type Dimension } from './core/dimensions.js';
import type { RateLimitSettings } from './rate-limit.types.js';
import type { RateLimitSlice } from './core/rate-limit-slice.types.js';
import { MemoryRiskStore } from './store/risk/memory-risk.store.js';
import { bandOf, riskScore } from './core/risk-math.js';
import { riskParams } from './core/risk-params.js';
import { RiskPlanner } from './risk/risk-planner.js';
import { RISK_STORE, type RiskStore } from './store/risk/risk-store.js';

const iso = (us: number): string => new Date(us / 1000).toISOString();

/** Dimensions whose ids are named by an app (users) or a bot (Telegram users and chats). */
const SCOPED: ReadonlySet<string> = new Set(['user', 'chat']);

function invalid(detail: string): never {
  throw new ProblemException(400, 'validation_failed', 'Request failed validation', { detail });
}

/** The rate-limit lock's admin port: a subject's score and effective quotas, its reset, and the load level. */
@Injectable()
export class RateLimitAdmin implements RateLimitAdminPort {
  constructor(
    private readonly planner: RiskPlanner,
    private readonly lanes: StoreLanes,
    private readonly chain: LockChain,
    private readonly loadMonitor: LoadMonitor,
    private readonly memory: MemoryRiskStore,
    @Inject(RISK_STORE) private readonly store: RiskStore,
    @InjectRateLimitSettings() private readonly settings: RateLimitSettings,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  load(): LoadView {
    return this.loadMonitor.view();
  }

  async subject(dimension: string, id: string, scope?: string): Promise<SubjectRiskView> {
    const { key, part, dim, store } = this.locate(dimension, id, scope);
    const scored = this.planner.enabled && this.settings.risk.dimensions.includes(dim);
    const rec = scored ? await store.read(key) : undefined;
    const p = riskParams(this.settings.risk, undefined);
    const now = this.clock.now() * 1000;
    const score = scored ? riskScore(rec, now, p) : 0;
    const multiplier = scored ? bandOf(score, p.bands) : 1;
    const f = rec?.f;
    return {
      dimension: dim,
      scope: scope ?? null,
      subject: part,
      scored,
      score: Math.round(score * 100) / 100,
      multiplier,
      newSubject: scored && (f === undefined || now - f < p.newUs),
      reputation:
        f === undefined ? 0 : Math.min(p.repMax, Math.floor((now - f) / p.repPeriodUs) * p.repPer),
      firstSeen: f === undefined ? null : iso(f),
      signals: Object.fromEntries(
        Object.entries(rec?.signals ?? {}).map(([s, v]) => [
          s,
          { count: v.count, last: iso(v.lastUs) },
        ]),
      ),
      quotas: this.quotas(dim, multiplier),
    };
  }

  async resetSubject(dimension: string, id: string, scope?: string): Promise<boolean> {
    const { key, store } = this.locate(dimension, id, scope);
    return store.reset(key);
  }

  /** The record key of an id given in clear, hashed as the limiter hashes it (an IP grouped by its network). */
  private locate(dimension: string, id: string, scope: string | undefined) {
    if (!DIMENSIONS.includes(dimension as Dimension) || dimension === 'global')
      invalid(`dimension must be one of ${DIMENSIONS.filter((d) => d !== 'global').join(', ')}`);
    if (id.length === 0 || id.length > 256) invalid('id must have 1 to 256 characters');
    if (scope !== undefined && !SCOPED.has(dimension))
      invalid(`only ${[...SCOPED].join(' and ')} ids have a scope (an app or a bot)`);
    if (scope !== undefined && (scope.length === 0 || scope.length > 128))
      invalid('scope must have 1 to 128 characters');
    const dim = dimension as Dimension;
    const value = dim === 'ip' ? addressGroup(id, this.settings.ipv6Prefix) : id;
    const lane = this.lanes.current() ?? this.lanes.local();
    const subject = {
      value,
      personal: dim !== 'app' && dim !== 'command' && dim !== 'bot' && dim !== 'route',
      ...(scope !== undefined ? { scope } : {}),
    };
    const key = this.planner.key(this.lanes.tag, dim, subject, lane.hasher);
    return {
      key,
      part: key.slice(key.lastIndexOf(':') + 1),
      dim,
      store: lane.remote ? this.store : this.memory,
    };
  }

  /** Every rule on the dimension: its quota and its quota × the multiplier (tiers and load not applied). */
  private quotas(dim: Dimension, m: number): EffectiveQuota[] {
    const out: EffectiveQuota[] = [];
    for (const [name, p] of Object.entries(this.chain.current().policies)) {
      const slice = p.locks.rateLimit as RateLimitSlice | undefined;
      if (!slice || slice.mode === 'off' || p.critical) continue;
      for (const r of slice.rules ?? []) {
        const rate = parseRate(r.rate);
        if (r.dimension !== dim || !rate) continue;
        out.push({
          rule: `${name}.${r.name}`,
          capacity: capacityOf(r),
          rate,
          effectiveCapacity: Math.floor(capacityOf(r) * m),
          effectiveRate: rate * m,
        });
      }
    }
    return out;
  }
}
