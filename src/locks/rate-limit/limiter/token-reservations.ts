import { Inject, Injectable, Logger } from '@nestjs/common';
import type { LockContext } from '../../../chain/lock.types.js';
import { CLOCK, type Clock } from '../../../common/clock.js';
import { onReplyClosed } from '../../../http/http-context.js';
import type { TokenReservation, TokenUse } from '../../../http/request-state.js';
import { RateLimitMetrics } from '../rate-limit.metrics.js';
import { modelPart, type TokenAsk } from '../rules/request-buckets.js';
import type { RateLimitStore, Settlement } from '../store/rate-limit.store.js';
import type { KeyHasher } from '../subjects/key-hasher.js';
import { SubjectResolver } from '../subjects/subject-resolver.js';
import { spendMicros, usageWrites, type TokenPrice, type UsageRecord } from '../core/usage-keys.js';
import { type Reserved, usedBy } from './reserved-tokens.js';

/** One request's reservation: settled once, by the product or (not held) whole when the response closes. */
class Reservation implements TokenReservation {
  private held = false;
  private done = false;

  constructor(
    readonly reserved: TokenUse,
    private readonly items: Reserved[],
    private readonly commit: (s: Settlement[], rules: Reserved[], used: TokenUse) => void,
    private readonly price?: TokenPrice,
  ) {}

  hold(): void {
    this.held = true;
  }

  settle(used: TokenUse): boolean {
    if (this.done) return false;
    this.done = true;
    this.commit(
      this.items.map((r) => ({
        key: r.key,
        group: r.group,
        reserved: r.reserved,
        used: usedBy(r.count, used, this.price),
        untilUs: r.untilUs,
      })),
      this.items,
      used,
    );
    return true;
  }

  /** The response closed: a reservation nobody held is given back whole (nothing reached a backend). */
  closed(): void {
    if (!this.held) this.settle({ prompt: 0, completion: 0 });
  }
}

/**
 * Holds a request's token reservations until its answer is over (docs/rate-limit.md#token-rules): the product
 * settles them to what the upstream used (`state.tokens`), in one store call per hash slot, to the store that
 * decided. A sized request with no tokens rule holds an empty reservation: its settlement only records the usage
 * (the per-turn batched settle call, shared with the other answers that end in the same turn). A failed settlement (Redis down) is counted; the reservation then stays until its window ends.
 */
@Injectable()
export class TokenReservations {
  private readonly logger = new Logger('TokenReservations');

  constructor(
    private readonly m: RateLimitMetrics,
    private readonly subjects: SubjectResolver,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /**
   * `lane`: the store that decided, the hasher of its keys and the service tag. The answer's usage (app, user as
   * the keys hash it, model, tokens, spend) is written with the settlement, in the same store call.
   */
  hold(
    ctx: LockContext,
    policy: string,
    lane: { store: RateLimitStore; hasher: KeyHasher; tag: string },
    ask: TokenAsk,
    items: Reserved[],
  ): void {
    const who = this.who(ctx, lane.hasher);
    const r = new Reservation(
      { prompt: ask.prompt, completion: ask.completion },
      items,
      (s, rules, used) => {
        const model = modelPart(ask.model);
        // Spend rules' charges are in rampart_ratelimit_spend_total (µ$ are no tokens).
        rules.forEach((rule, i) => {
          if (rule.count !== 'spend')
            this.m.usage.tokensUsed(policy, rule.rule, model, rule.count, s[i]!.used);
        });
        const prompt = usedBy('prompt', used);
        const completion = usedBy('completion', used);
        const spend = spendMicros(prompt, completion, ask.price);
        this.m.usage.spent(policy, model, spend);
        const rec: UsageRecord = { ...who, model, prompt, completion, spend };
        const usage = prompt + completion > 0 ? usageWrites(lane.tag, rec, this.clock.now()) : [];
        lane.store.settle(s, usage).catch((err: unknown) => {
          this.m.storeErrors.inc({ policy, kind: 'settle' });
          this.logger.warn({ msg: 'token settlement failed', policy, err: (err as Error).message });
        });
      },
      ask.price,
    );
    ctx.state.tokens = r;
    onReplyClosed(ctx.reply, () => r.closed());
  }

  /** The request's app and user as key parts (the user as the limiter's keys hash it, scoped by its app). */
  private who(ctx: LockContext, hasher: KeyHasher): { app: string; user?: string } {
    const app = ctx.state.appId;
    const user = this.subjects.resolve('user', ctx, undefined);
    return {
      app: app ? hasher.part('app', { value: app, personal: false }) : '-',
      ...(user ? { user: hasher.part('user', user) } : {}),
    };
  }
}
