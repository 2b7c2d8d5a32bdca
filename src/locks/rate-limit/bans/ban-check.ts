import { Inject, Injectable } from '@nestjs/common';
import type { LockContext } from '../../../chain/lock.types.js';
import { CLOCK, type Clock } from '../../../common/clock.js';
import { RedisService } from '../../../redis/redis.service.js';
import { RateLimitExtensions } from '../extensions/rate-limit-extensions.js';
import type { Subject, SubjectContext } from '../extensions/rate-limit-extensions.js';
import type { KeyHasher } from '../subjects/key-hasher.js';
import { SubjectResolver } from '../subjects/subject-resolver.js';
import { KeyHashers } from '../store/lanes/key-hashers.js';
import { RateLimitMetrics, type BanOutcome } from '../rate-limit.metrics.js';
import type { BanDimension, BanEntry } from './ban.types.js';
import { BanTable } from './ban-table.js';

/**
 * Is this request's subject banned? Read from the in-memory BanTable only:
 * no Redis call, nothing at all while no ban is held. Each banned dimension's
 * subject is resolved as the limiter resolves it and hashed without its scope
 * (the ban names the scope itself: its app, or none for a global ban).
 */
@Injectable()
export class BanCheck {
  constructor(
    readonly table: BanTable,
    private readonly subjects: SubjectResolver,
    private readonly extensions: RateLimitExtensions,
    private readonly hashers: KeyHashers,
    private readonly redis: RedisService,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly metrics: RateLimitMetrics,
  ) {}

  /** Counts a request a ban matched (`rampart_ratelimit_banned_total`): by policy and dimension, never the subject. */
  count(ctx: Pick<LockContext, 'policyName'>, ban: BanEntry, outcome: BanOutcome): void {
    this.metrics.banned.inc({ policy: ctx.policyName, dimension: ban.dimension, outcome });
  }

  /** The hasher of ban subjects: the shared one with Redis (the same on every instance), undefined until known. */
  hasher(): KeyHasher | undefined {
    return this.redis.enabled ? this.hashers.shared() : this.hashers.local;
  }

  /** The key part a ban names `subject` of `dimension` by (its value without scope, hashed where personal). */
  part(dimension: BanDimension, subject: Subject, hasher: KeyHasher): string {
    return hasher.part(dimension, { value: subject.value, personal: subject.personal });
  }

  now(): number {
    return this.clock.now();
  }

  /**
   * A ban of the request's address that applies whatever its app (global): what the front door can know
   * before the signature lock ran (an app's own IP bans wait for the verified app, in `match`).
   */
  matchAddress(ctx: SubjectContext): BanEntry | undefined {
    if (!this.mayMatchAddress()) return undefined;
    const hasher = this.hasher();
    const s = hasher && this.subjects.resolve('ip', ctx, undefined);
    if (!s) return undefined;
    return this.table.find('ip', this.part('ip', s, hasher), undefined, this.clock.now());
  }

  /** Whether `matchAddress` could find anything (some ban names an address): nothing to resolve otherwise. */
  mayMatchAddress(): boolean {
    return this.table.size > 0 && this.table.dimensions().includes('ip');
  }

  match(ctx: LockContext): BanEntry | undefined {
    if (this.table.size === 0) return undefined;
    const hasher = this.hasher();
    if (!hasher) return undefined;
    const now = this.clock.now();
    for (const dim of this.table.dimensions()) {
      const s = this.subjects.resolve(dim, ctx, this.extensions.subject(dim));
      if (s === undefined) continue;
      // A user's or chat's scope is its app or bot; an address is judged for the request's app.
      const scope = s.scope ?? ctx.state.appId;
      const hit = this.table.find(dim, this.part(dim, s, hasher), scope, now);
      if (hit) return hit;
    }
    return undefined;
  }
}
