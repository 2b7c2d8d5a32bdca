import { Inject, Injectable } from '@nestjs/common';
import type { LockContext, Next } from '../../chain/lock.types.js';
import { ProblemException } from '../../common/problem.exception.js';
import { setReplyHeader } from '../../http/http-context.js';
import { AnswerCache, type CachedAnswer } from './cache/answer-cache.js';
import { SingleFlight } from './cache/single-flight.js';
import { ShieldMetrics, type ShieldReason } from './cache-shield.metrics.js';
import type { ShieldRoute } from './cache-shield.types.js';
import { BloomService, type Verdict } from './filters/bloom.service.js';
import {
  SHIELD_HEADER,
  emptyPage,
  isEmptyPage,
  isItemNotFound,
  itemNotFound,
  pageFor,
  queryTooLong,
} from './request/shield-answers.js';
import { type ShieldRequest, readRequest, validSearchQuery } from './request/shield-request.js';

export const ANSWER_CACHE = Symbol('ANSWER_CACHE');

type Outcome = { ok: true; body: unknown } | { ok: false; error: unknown };
const NOT_MINE = Symbol('not mine');

/**
 * Lock 3's decision for one request: Bloom filter ("definitely absent" →
 * empty answer at once), then the result and null caches, then one call per
 * key and instance (single flight) whose answer fills the caches. It answers
 * itself only where the route would answer the same (the request passes the
 * route's own validation); otherwise it calls on.
 */
@Injectable()
export class ShieldService {
  private readonly flights = new SingleFlight<Outcome>();
  /** Shadow-mode requests the shield would have answered itself (told to the chain when it calls on). */
  private readonly wouldAnswer = new WeakSet<LockContext>();

  constructor(
    private readonly bloom: BloomService,
    @Inject(ANSWER_CACHE) private readonly cache: AnswerCache,
    private readonly metrics: ShieldMetrics,
  ) {}

  async around(ctx: LockContext, route: ShieldRoute, next: Next): Promise<unknown> {
    const read = readRequest(ctx.req, route);
    if ('skip' in read) return this.forward(ctx, next);
    if ('tooLong' in read) {
      this.intercepted(ctx, 'too-long');
      if (ctx.mode === 'enforce') throw queryTooLong(read.tooLong);
      return this.forward(ctx, next);
    }
    const r = read.request;
    const until = route.allowlist.get(r.allowKey);
    if (until !== undefined && Date.now() < until) return this.forward(ctx, next);
    const enforce = ctx.mode === 'enforce';
    const single = r.keys.length === 1;
    const filterOn = route.filterOn || Date.now() >= route.filterOffUntil;
    const looked = filterOn
      ? this.bloom.verdict(r.filter, r.keys)
      : { verdict: 'bypassed' as Verdict, version: 0 };
    let verdict = looked.verdict;
    if (verdict === 'absent' && !(await this.bloom.confirmAbsent(r.filter))) verdict = 'bypassed';
    if (verdict === 'absent') {
      if (single) this.bloom.observe(r.filter, 'true-negative');
      const done = enforce
        ? this.answer(ctx, r, `bloom-absent;v=${looked.version}`, 'bloom-absent', undefined)
        : NOT_MINE;
      if (done !== NOT_MINE) return done;
      if (!enforce) this.intercepted(ctx, 'bloom-absent');
    }
    const key = this.cache.key(ctx.policyName, r.cacheKey);
    const gen = this.bloom.generation();
    const hit =
      route.resultTtlMs > 0 || route.nullTtlMs > 0 || ctx.state.degraded
        ? await this.cache.get(key)
        : undefined;
    this.metrics.cache.inc({
      policy: ctx.policyName,
      result: this.cache.bypassed ? 'bypassed' : hit ? (hit.empty ? 'null' : 'hit') : 'miss',
    });
    if (hit) {
      const fresh = hit.gen === gen && hit.freshUntil > Date.now();
      if (fresh || ctx.state.degraded) {
        if (single && verdict === 'maybe' && hit.empty)
          this.bloom.observe(r.filter, 'false-positive');
        const [header, reason]: [string, ShieldReason] = hit.empty
          ? ['null-cache', 'null-cache']
          : fresh
            ? ['cache-hit', 'cache-hit']
            : ['cache-hit;stale', 'stale'];
        const done = enforce ? this.answer(ctx, r, header, reason, hit) : NOT_MINE;
        if (done !== NOT_MINE) return done;
        if (!enforce) this.intercepted(ctx, reason);
      }
    }
    ctx.state.staleResult = async () => {
      const entry = hit ?? (await this.cache.get(key));
      return entry && !entry.empty ? this.render(r, entry.body) : undefined;
    };
    const call = () => this.call(ctx, r, route, key, gen, verdict, next);
    if (!enforce) return unwrap(await call());
    const { leader, promise } = this.flights.run(key, call);
    const outcome = await promise;
    if (leader) return unwrap(outcome);
    return this.follow(ctx, r, outcome, next);
  }

  /** Calls on (the backend), then fills the caches and the false-positive count from the answer. */
  private async call(
    ctx: LockContext,
    r: ShieldRequest,
    route: ShieldRoute,
    key: string,
    gen: string,
    verdict: string,
    next: Next,
  ): Promise<Outcome> {
    let outcome: Outcome;
    try {
      outcome = { ok: true, body: await this.forward(ctx, next) };
    } catch (error) {
      outcome = { ok: false, error };
    }
    const empty = outcome.ok
      ? r.kind === 'query' && isEmptyPage(outcome.body)
      : isItemNotFound(outcome.error);
    const found = outcome.ok && !empty;
    if (r.keys.length === 1 && verdict === 'maybe' && empty)
      this.bloom.observe(r.filter, 'false-positive');
    if (verdict === 'absent' && found) this.bloom.contradicted(r.filter);
    // Answers read while the data changed are not cached: they may predate the change.
    if ((found || empty) && this.bloom.generation() === gen) {
      const ttl = {
        freshMs: empty ? route.nullTtlMs : route.resultTtlMs,
        staleMs: route.staleTtlMs,
        jitter: route.jitter,
      };
      await this.cache.put(key, { body: outcome.ok ? outcome.body : null, empty, gen }, ttl);
    }
    return outcome;
  }

  /** A request that joined another's call: the same answer, if the route would accept this request too. */
  private async follow(
    ctx: LockContext,
    r: ShieldRequest,
    outcome: Outcome,
    next: Next,
  ): Promise<unknown> {
    if (outcome.ok || isItemNotFound(outcome.error)) {
      const done = this.answer(
        ctx,
        r,
        'coalesced',
        'coalesced',
        outcome.ok ? { body: outcome.body, empty: false } : { body: null, empty: true },
      );
      if (done !== NOT_MINE) return done;
    } else if (outcome.error instanceof ProblemException && outcome.error.getStatus() >= 500) {
      throw outcome.error;
    }
    // The leader's failure was its own (validation, abort): this request makes its own call.
    return this.forward(ctx, next);
  }

  /** Answers the request itself, or NOT_MINE when the route would refuse the request (then the caller calls on). */
  private answer(
    ctx: LockContext,
    r: ShieldRequest,
    header: string,
    reason: ShieldReason,
    entry: Pick<CachedAnswer, 'body' | 'empty'> | undefined,
  ): unknown {
    if (r.kind === 'id') {
      if (entry && !entry.empty) return this.done(ctx, header, reason, entry.body);
      this.count(ctx, reason);
      throw itemNotFound(header).asAnswer();
    }
    const q = validSearchQuery(r.query!);
    if (!q) return NOT_MINE;
    return this.done(
      ctx,
      header,
      reason,
      entry && !entry.empty ? pageFor(entry.body, q) : emptyPage(q),
    );
  }

  private done(ctx: LockContext, header: string, reason: ShieldReason, body: unknown): unknown {
    setReplyHeader(ctx.reply, SHIELD_HEADER, header);
    this.count(ctx, reason);
    return body;
  }

  private render(r: ShieldRequest, body: unknown): unknown {
    if (r.kind === 'id') return body;
    const q = validSearchQuery(r.query!);
    return q ? pageFor(body, q) : undefined;
  }

  private count(ctx: LockContext, reason: ShieldReason): void {
    this.metrics.interceptions.inc({ policy: ctx.policyName, reason, mode: 'enforce' });
  }

  private intercepted(ctx: LockContext, reason: ShieldReason): void {
    if (ctx.mode === 'enforce') {
      this.count(ctx, reason);
      return;
    }
    this.metrics.interceptions.inc({ policy: ctx.policyName, reason, mode: 'shadow' });
    this.wouldAnswer.add(ctx);
  }

  private forward(ctx: LockContext, next: Next): Promise<unknown> {
    this.metrics.forwarded.inc({ policy: ctx.policyName });
    return next(this.wouldAnswer.has(ctx) ? 'shadow_rejected' : 'allowed');
  }
}

function unwrap(o: Outcome): unknown {
  if (o.ok) return o.body;
  throw o.error;
}
