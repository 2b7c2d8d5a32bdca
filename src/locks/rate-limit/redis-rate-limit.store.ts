import { RedisScriptError, RedisUnavailableError } from '../../redis/redis.errors.js';
import { BucketState, decideBuckets } from './bucket-math.js';
import { Clock, systemClock } from './clock.js';
import { BucketOutcome, BucketSpec, Decision, DecideRequest, RateLimitStore, bucketTtlMs } from './rate-limit.store.js';

/** What the store needs of RedisService (a narrow seam, so tests can pass the real service or a cluster one). */
export interface ScriptRunner {
  script<T = unknown>(name: string, keys: readonly string[], args: readonly (string | number)[]): Promise<T>;
}

export interface RedisStoreOptions {
  /** `redis`: Redis TIME (falling back to the app clock where TIME is refused); `app`: the app clock. */
  clock: 'redis' | 'app';
  /** Redis Cluster: buckets of different hash-tag groups go to separate calls (reserve + refund). */
  cluster: boolean;
  appClock?: Clock;
  /** Called once per refund call (metrics). */
  onRefund?: (keys: number) => void;
  /** Upper bound in ms of a multi-slot decision (several calls): the Redis command timeout. */
  deadlineMs?: number;
  /** false: every call takes the script's general path, even for GCRA-only buckets (tests run the table both ways). */
  fastPath?: boolean;
}

const FLAG_SHADOW = 1;
const FLAG_SOFT = 2;
const FLAG_DEGRADABLE = 4;
const FLAG_PENALTY = 8;

/**
 * Rate-limit state in Redis: ONE `ratelimit_decide` call per request when
 * every key shares a hash slot (the default `{<env>:<service>}` tag). Under
 * Redis Cluster, buckets of other slots (`scope: subject`) are decided per
 * slot in parallel and each slot reserves its charge; when any slot refuses,
 * the slots that charged are refunded (`ratelimit_refund`). Bound on error:
 * the refund never over-admits; between reserve and refund (one round trip)
 * other requests may see up to the reserved tokens missing, and if the refund
 * itself fails those tokens come back only by refill (cost × interval).
 */
export class RedisRateLimitStore implements RateLimitStore {
  private readonly appClock: Clock;

  constructor(
    private readonly redis: ScriptRunner,
    private readonly opts: RedisStoreOptions,
  ) {
    this.appClock = opts.appClock ?? systemClock;
  }

  async decide(req: DecideRequest): Promise<Decision> {
    const groups = this.opts.cluster ? groupBy(req.buckets) : [req.buckets.map((_, i) => i)];
    if (groups.length === 1) return this.call(req, groups[0]!);
    const work = this.decideSlots(req, groups);
    if (!this.opts.deadlineMs) return work;
    // Several calls must not add up past the command timeout: past it the request is decided by the
    // failMode; a reservation that lands later comes back by refill (the bound documented above).
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new RedisUnavailableError('ratelimit_decide', `multi-slot decision over ${this.opts.deadlineMs} ms`)), this.opts.deadlineMs);
    });
    try {
      return await Promise.race([work, deadline]);
    } finally {
      clearTimeout(timer);
      work.catch(() => undefined);
    }
  }

  private async decideSlots(req: DecideRequest, groups: number[][]): Promise<Decision> {
    // The slot holding the global soft bucket goes first, so the others know whether the request is degraded.
    const soft = req.degradeAt > 0 ? groups.findIndex((g) => g.some((i) => req.buckets[i]!.soft)) : -1;
    const first = soft >= 0 ? await Promise.allSettled([this.call(req, groups[soft]!)]) : [];
    const hint = first[0]?.status === 'fulfilled' ? { ...req, degradedHint: first[0].value.degraded } : req;
    const rest = await Promise.allSettled(groups.map((idx, g) => (g === soft ? undefined : this.call(hint, idx))));
    const settled = rest.map((r, g) => (g === soft ? first[0]! : r)) as PromiseSettledResult<Decision>[];
    const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    if (failed) {
      // Give back what the slots that answered reserved, then report the failure (the policy's failMode decides).
      const ok = settled.map((s) => (s.status === 'fulfilled' ? s.value : undefined));
      await this.refund(req, groups, ok);
      throw failed.reason;
    }
    const parts = settled.map((s) => (s as PromiseFulfilledResult<Decision>).value);
    const buckets: BucketOutcome[] = new Array(req.buckets.length);
    let allowed = true;
    let degraded = false;
    parts.forEach((d, g) => {
      groups[g]!.forEach((bi, j) => (buckets[bi] = d.buckets[j]!));
      allowed &&= d.allowed;
      degraded ||= d.degraded;
    });
    let blocker = -1;
    if (!allowed) {
      await this.refund(req, groups, parts);
      for (const o of buckets) o.charged = 0;
      buckets.forEach((o, i) => {
        if (!o.allowed && !req.buckets[i]!.shadow && (blocker < 0 || o.retryAfterMs > buckets[blocker]!.retryAfterMs)) blocker = i;
      });
    }
    return { allowed, blocker, degraded, nowMs: Math.max(...parts.map((p) => p.nowMs)), buckets };
  }

  /**
   * One `ratelimit_decide` call for the buckets `idx`. The script decides and writes, and returns the state
   * it read; the figures come from bucket-math.ts on that state (the same arithmetic), checked against the
   * script's own allowed / degraded.
   */
  private async call(req: DecideRequest, idx: number[]): Promise<Decision> {
    const sub: DecideRequest = idx.length === req.buckets.length ? req : { ...req, buckets: idx.map((i) => req.buckets[i]!) };
    const { buckets } = sub;
    const clock = [Math.round(this.appClock.now() * 1000), this.opts.clock === 'redis' ? 'r' : 'a'];
    const fast = this.opts.fastPath !== false && buckets.every((b) => b.kind === 'g' && !(b.penaltyKey && b.penalty));
    const { keys, args, penalties } = fast ? fastArgs(sub, clock) : generalArgs(sub, clock);
    const out = await this.redis.script<(string | number | null)[]>('ratelimit_decide', keys, args);
    // Reply: GCRA values (bucket order), penalty strike TATs, then token-bucket / fixed-window pairs.
    const state: BucketState[] = new Array<BucketState>(buckets.length);
    let o = 0;
    for (let i = 0; i < buckets.length; i++) {
      if (buckets[i]!.kind !== 'g') continue;
      const v = out[o++];
      state[i] = { value: v === null ? undefined : Number(v) };
    }
    for (let i = 0; i < buckets.length && penalties > 0; i++) {
      const b = buckets[i]!;
      if (!b.penaltyKey || !b.penalty) continue;
      const p = out[o++];
      (state[i] ??= {}).penaltyTat = p === null ? undefined : Number(p);
    }
    for (let i = 0; i < buckets.length; i++) {
      const b = buckets[i]!;
      if (b.kind === 'g') continue;
      const v = out[o++];
      const w = out[o++];
      (state[i] ??= {}).value = v === null ? undefined : b.kind === 't' ? { t: Number(v), ts: Number(w) } : { count: Number(v), expiresAtUs: Number(w) };
    }
    const d = decideBuckets(sub, state, out[o] as number);
    if (d.allowed !== (out[o + 1] === 1) || d.degraded !== (out[o + 2] === 1)) {
      throw new RedisScriptError('ratelimit_decide', `the script decided allowed=${out[o + 1]} degraded=${out[o + 2]}, bucket-math.ts on the same state allowed=${d.allowed} degraded=${d.degraded}`);
    }
    if (d.blocker >= 0) d.blocker = idx[d.blocker]!;
    return d;
  }

  private async refund(req: DecideRequest, groups: number[][], parts: (Decision | undefined)[]): Promise<void> {
    await Promise.all(
      parts.map(async (d, g) => {
        if (!d?.allowed) return;
        const keys: string[] = [];
        const args: (string | number)[] = [Math.round(this.appClock.now() * 1000), this.opts.clock === 'redis' ? 'r' : 'a'];
        groups[g]!.forEach((bi, j) => {
          const o = d.buckets[j]!;
          if (o.charged <= 0) return;
          const b = req.buckets[bi]!;
          keys.push(b.key);
          args.push(b.kind, o.charged, b.capacity);
        });
        if (keys.length === 0) return;
        this.opts.onRefund?.(keys.length);
        // A failed refund is not retried: the tokens come back by refill (see the class comment).
        await this.redis.script('ratelimit_refund', keys, args).catch(() => undefined);
      }),
    );
  }
}

/** Bucket indexes grouped by hash tag (the part in braces), in first-seen order. */
function groupBy(buckets: BucketSpec[]): number[][] {
  const byTag = new Map<string, number[]>();
  buckets.forEach((b, i) => {
    const list = byTag.get(b.group);
    if (list) list.push(i);
    else byTag.set(b.group, [i]);
  });
  return [...byTag.values()];
}

/**
 * ARGV of the fast path (GCRA buckets without penalty): tolerance and increment at multiplier 1 and, when the
 * policy degrades, at the degrade factor — the doubles bucket-math.ts computes (capacity × m) × (interval ÷ m).
 */
function fastArgs(req: DecideRequest, clock: (string | number)[]): { keys: string[]; args: (string | number)[]; penalties: number } {
  const degrade = req.degradeAt > 0 || req.degradedHint;
  const keys: string[] = [];
  const args = degrade ? [...clock, 'd', req.degradeAt > 0 ? req.degradeAt : 0, req.degradedHint ? '1' : '0'] : [...clock, 'g'];
  const degraded: number[] = [];
  for (const b of req.buckets) {
    keys.push(b.key);
    const flags = (b.shadow ? FLAG_SHADOW : 0) | (b.soft ? FLAG_SOFT : 0) | (b.degradable ? FLAG_DEGRADABLE : 0);
    args.push(b.capacity * b.intervalUs, b.cost * b.intervalUs, flags, bucketTtlMs(b));
    if (degrade && b.degradable) {
      const m = 1 * req.degradeFactor;
      const T = b.intervalUs / m;
      degraded.push(b.capacity * m * T, b.cost * T);
    }
  }
  for (const v of degraded) args.push(v);
  return { keys, args, penalties: 0 };
}

/** ARGV of the general path: every bucket's parameters, then the penalties. */
function generalArgs(req: DecideRequest, clock: (string | number)[]): { keys: string[]; args: (string | number)[]; penalties: number } {
  const keys: string[] = [];
  const args = [...clock, 'x', req.degradeAt > 0 ? req.degradeAt : 0, req.degradeFactor, req.degradedHint ? '1' : '0', req.buckets.length];
  const penalized = req.buckets.filter((b) => b.penaltyKey && b.penalty);
  for (const b of req.buckets) {
    keys.push(b.key);
    const flags = (b.shadow ? FLAG_SHADOW : 0) | (b.soft ? FLAG_SOFT : 0) | (b.degradable ? FLAG_DEGRADABLE : 0) | (b.penaltyKey && b.penalty ? FLAG_PENALTY : 0);
    args.push(b.kind, b.capacity, b.intervalUs, b.cost, flags, bucketTtlMs(b));
  }
  for (const b of penalized) {
    keys.push(b.penaltyKey!);
    args.push(b.penalty!.threshold, b.penalty!.factor, b.penalty!.decayUs, b.penalty!.floor, b.penalty!.maxStrikes, b.pendingStrikes ?? 0);
  }
  return { keys, args, penalties: penalized.length };
}
