import { Inject, Injectable } from '@nestjs/common';
import type { LockContext, Next } from '../../../chain/lock.types.js';
import { CLOCK, type Clock } from '../../../common/clock.js';
import { BloomService, type Verdict } from '../bloom/bloom.service.js';
import { ANSWER_CACHE, AnswerCache } from '../cache/answer-cache.js';
import { SingleFlight } from '../cache/single-flight.js';
import { ShieldMetrics, type ShieldReason } from '../cache-shield.metrics.js';
import { NO_GENERATION } from '../cache-shield.key-source.js';
import { queryTooLong } from '../cache-shield.problems.js';
import type { ShieldRoute } from '../cache-shield.types.js';
import { NOT_MINE, ShieldAnswers } from './shield-answers.js';
import { type Outcome, ShieldCalls, unwrap } from './shield-call.js';

/**
 * Lock 3's decision for one request: Bloom filter ("definitely absent" →
 * the route's empty answer at once), then the result and null caches, then
 * one call per key and instance (single flight) whose answer fills the
 * caches. What a request's keys are and what the route would answer come
 * from the route's key source; the shield answers itself only where the
 * route would answer the same (the request passes the route's own
 * validation); otherwise it calls on.
 */
@Injectable()
export class ShieldService {
  private readonly flights = new SingleFlight<Outcome>();
  private readonly answers: ShieldAnswers;
  private readonly calls: ShieldCalls;

  constructor(
    private readonly bloom: BloomService,
    @Inject(ANSWER_CACHE) private readonly cache: AnswerCache,
    private readonly metrics: ShieldMetrics,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {
    this.answers = new ShieldAnswers(metrics);
    this.calls = new ShieldCalls(bloom, cache, this.answers);
  }

  async around(ctx: LockContext, route: ShieldRoute, next: Next): Promise<unknown> {
    const { answers } = this;
    const read = route.source.read(ctx.req, route.maxQueryLength);
    if ('skip' in read) return answers.forward(ctx, next);
    if ('tooLong' in read) {
      answers.intercepted(ctx, 'too-long');
      if (ctx.mode === 'enforce') throw queryTooLong(route.source.label ?? 'key', read.tooLong);
      return answers.forward(ctx, next);
    }
    const r = read.request;
    const until = route.allowlist.get(r.allowKey);
    if (until !== undefined && this.clock.now() < until) return answers.forward(ctx, next);
    const enforce = ctx.mode === 'enforce';
    if (r.nothing) {
      // Nothing can match (the product's own tokenizer found no key): no lookup, no backend.
      const done = enforce
        ? answers.answer(ctx, r, route, 'no-keys', 'no-keys', undefined)
        : NOT_MINE;
      if (done !== NOT_MINE) return done;
      if (!enforce) answers.intercepted(ctx, 'no-keys');
      return answers.forward(ctx, next);
    }
    const single = r.keys.length === 1;
    const filterOn = route.filterOn || this.clock.now() >= route.filterOffUntil;
    const looked = filterOn
      ? this.bloom.verdict(r.filter, r.keys)
      : { verdict: 'bypassed' as Verdict, version: 0 };
    let verdict = looked.verdict;
    if (verdict === 'absent' && !(await this.bloom.confirmAbsent(r.filter))) verdict = 'bypassed';
    if (verdict === 'absent') {
      if (single) this.bloom.observe(r.filter, 'true-negative');
      const done = enforce
        ? answers.answer(
            ctx,
            r,
            route,
            `bloom-absent;v=${looked.version}`,
            'bloom-absent',
            undefined,
          )
        : NOT_MINE;
      if (done !== NOT_MINE) return done;
      if (!enforce) answers.intercepted(ctx, 'bloom-absent');
    }
    // An app-scoped route's entries (and its single flight) are the signing app's own.
    const app = route.scope === 'app' ? (ctx.state.appId ?? '') : undefined;
    const key = this.cache.key(ctx.policyName, r.cacheKey, app);
    const gen = route.source.independentOfData ? NO_GENERATION : this.bloom.generation();
    // Degraded load, or a caller over its quota whose route answers it from the cache (`onLimit: stale`).
    const staleOk = ctx.state.degraded === true || ctx.state.overQuota !== undefined;
    const hit =
      route.resultTtlMs > 0 || route.nullTtlMs > 0 || staleOk
        ? await this.cache.get(key, gen)
        : undefined;
    this.metrics.cache.inc({
      policy: ctx.policyName,
      result: this.cache.bypassed ? 'bypassed' : hit ? (hit.empty ? 'null' : 'hit') : 'miss',
    });
    if (hit) {
      const fresh = hit.gen === gen && hit.freshUntil > this.clock.now();
      if (fresh || staleOk) {
        if (single && verdict === 'maybe' && hit.empty)
          this.bloom.observe(r.filter, 'false-positive');
        const [header, reason]: [string, ShieldReason] = ctx.state.overQuota
          ? [hit.empty ? 'null-cache;over-quota' : 'cache-hit;stale;over-quota', 'over-quota']
          : hit.empty
            ? ['null-cache', 'null-cache']
            : fresh
              ? ['cache-hit', 'cache-hit']
              : ['cache-hit;stale', 'stale'];
        const done = enforce ? answers.answer(ctx, r, route, header, reason, hit) : NOT_MINE;
        if (done !== NOT_MINE) return done;
        if (!enforce) answers.intercepted(ctx, reason);
      }
    }
    ctx.state.staleResult = async () => {
      const entry = hit ?? (await this.cache.get(key));
      return entry && !entry.empty ? answers.render(ctx, r, route, entry.body) : undefined;
    };
    const call = () => this.calls.call(ctx, r, route, key, gen, verdict, next);
    if (!enforce) return unwrap(await call());
    const { leader, promise } = this.flights.run(key, call);
    const outcome = await promise;
    if (leader) return unwrap(outcome);
    return this.calls.follow(ctx, r, route, outcome, next);
  }
}
