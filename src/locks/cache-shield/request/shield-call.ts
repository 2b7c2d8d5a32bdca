import type { LockContext, Next } from '../../../chain/lock.types.js';
import { ProblemException } from '../../../common/problem.exception.js';
import type { BloomService, Verdict } from '../bloom/bloom.service.js';
import type { AnswerCache } from '../cache/answer-cache.js';
import { NO_GENERATION, type ShieldRequest } from '../cache-shield.key-source.js';
import type { ShieldRoute } from '../cache-shield.types.js';
import { NOT_MINE, type ShieldAnswers } from './shield-answers.js';

/** What the backend gave one call: shared with the requests that joined it. */
export type Outcome = { ok: true; body: unknown; kept: unknown } | { ok: false; error: unknown };

/** The shield's calls to the backend: one per key and instance, whose answer fills the caches. */
export class ShieldCalls {
  constructor(
    private readonly bloom: BloomService,
    private readonly cache: AnswerCache,
    private readonly answers: ShieldAnswers,
  ) {}

  /** Calls on (the backend), then fills the caches and the false-positive count from the answer. */
  async call(
    ctx: LockContext,
    r: ShieldRequest,
    route: ShieldRoute,
    key: string,
    gen: string,
    verdict: Verdict,
    next: Next,
  ): Promise<Outcome> {
    let outcome: Outcome;
    try {
      const body = await this.answers.forward(ctx, next);
      const { keep } = route.source;
      outcome = { ok: true, body, kept: keep ? keep.call(route.source, r, body) : body };
    } catch (error) {
      outcome = { ok: false, error };
    }
    const empty = outcome.ok
      ? route.source.isEmpty(outcome.body)
      : route.source.isEmptyError(outcome.error);
    // An answer the key source keeps nothing of (e.g. a stream that did not finish) is not cached.
    const found = outcome.ok && !empty && outcome.kept !== undefined;
    if (r.keys.length === 1 && verdict === 'maybe' && empty)
      this.bloom.observe(r.filter, 'false-positive');
    if (verdict === 'absent' && found) this.bloom.contradicted(r.filter);
    // Answers read while the data changed are not cached: they may predate the change.
    if ((found || empty) && (gen === NO_GENERATION || this.bloom.generation() === gen)) {
      const ttl = {
        freshMs: empty ? route.nullTtlMs : route.resultTtlMs,
        staleMs: route.staleTtlMs,
        jitter: route.jitter,
      };
      const body = outcome.ok ? outcome.kept : null;
      await this.cache.put(key, { body, empty, gen }, ttl, ctx.state.appId ?? '');
    }
    return outcome;
  }

  /** A request that joined another's call: the same answer, if the route would accept this request too. */
  async follow(
    ctx: LockContext,
    r: ShieldRequest,
    route: ShieldRoute,
    outcome: Outcome,
    next: Next,
  ): Promise<unknown> {
    if (outcome.ok ? outcome.kept !== undefined : route.source.isEmptyError(outcome.error)) {
      const done = this.answers.answer(
        ctx,
        r,
        route,
        'coalesced',
        'coalesced',
        outcome.ok ? { body: outcome.kept, empty: false } : { body: null, empty: true },
      );
      if (done !== NOT_MINE) return done;
    } else if (
      !outcome.ok &&
      outcome.error instanceof ProblemException &&
      outcome.error.getStatus() >= 500
    ) {
      throw outcome.error;
    }
    // The leader's failure was its own (validation, abort), or left nothing to share: this request makes its own call.
    return this.answers.forward(ctx, next);
  }
}

/** The body of an outcome, or its error thrown. */
export function unwrap(o: Outcome): unknown {
  if (o.ok) return o.body;
  throw o.error;
}
