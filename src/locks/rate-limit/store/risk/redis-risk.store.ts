import type { Clock } from '../../../../common/clock.js';
import type { RedisService } from '../../../../redis/redis.service.js';
import { clockArgs } from '../redis-script-args.js';
import type { Argv } from '../redis-store.options.js';
import { observationRuns } from './observation-runs.js';
import type { RiskRecordView, RiskStore } from './risk-store.js';
import type { ObserveParams } from '../../core/risk.types.js';
import { RISK_SIGNALS, type RiskObservation, type RiskSignal } from '../../core/risk.types.js';

type Runner = Pick<RedisService, 'script' | 'run'>;

/**
 * Risk records in Redis: one `ratelimit_risk_observe` call per batch, a signal repeated in a row on one
 * record sent once with its count of repeats (observation-runs.ts); the decision script reads the records.
 * `batchArgs` gives a batch as the instance heartbeat carries it (lua/ratelimit_instance.lua), so deferred
 * observations cost no call of their own.
 */
export class RedisRiskStore implements RiskStore {
  constructor(
    private readonly redis: Runner,
    private readonly clock: Clock,
    private readonly mode: 'redis' | 'app',
  ) {}

  async observe(batch: readonly RiskObservation[], p: ObserveParams): Promise<number> {
    if (batch.length === 0) return 0;
    const { keys, args } = this.batchArgs(batch, p);
    return Number(await this.redis.script<number>('ratelimit_risk_observe', keys, args));
  }

  /** The KEYS and ARGV of `batch` as `ratelimit_risk_observe` (and the heartbeat's observation block) take them. */
  batchArgs(batch: readonly RiskObservation[], p: ObserveParams): { keys: string[]; args: Argv } {
    const keys: string[] = [];
    const args: Argv = [...clockArgs(this.clock, this.mode), p.unitUs, p.maxScore, p.ttlMs];
    args.push(p.payloadWindowMs, p.chatLimit, p.chatWindowMs, p.payloadPoints, p.chatPoints);
    args.push(p.quietTtlMs, p.repPeriodUs);
    for (const { o, times } of observationRuns(batch)) {
      keys.push(o.key);
      if (o.kind === 'signal') args.push('s', o.signal, o.count, o.points, times);
      else if (o.kind === 'payload') {
        keys.push(o.marker);
        args.push('p');
      } else {
        keys.push(o.set);
        args.push('c', o.member);
      }
    }
    return { keys, args };
  }

  async read(key: string): Promise<RiskRecordView | undefined> {
    const h = await this.redis.run('hgetall', (c) => c.hgetall(key));
    if (Object.keys(h).length === 0) return undefined;
    const n = (v: string | undefined): number | undefined =>
      v === undefined ? undefined : Number(v);
    const signals: RiskRecordView['signals'] = {};
    for (const s of RISK_SIGNALS as readonly RiskSignal[]) {
      const count = n(h[`n:${s}`]);
      if (count !== undefined) signals[s] = { count, lastUs: n(h[`l:${s}`]) ?? 0 };
    }
    return { s: n(h.s), f: n(h.f), t: n(h.t), signals };
  }

  async reset(key: string): Promise<boolean> {
    return (await this.redis.run('del', (c) => c.del(key))) > 0;
  }
}
