import { RedisScriptError, RedisUnavailableError } from '../../../redis/redis.errors.js';
import { BucketState, Write, decideBuckets } from '../buckets/bucket-math.js';
import { Clock, systemClock } from '../../../common/clock.js';
import {
  BucketOutcome,
  BucketSpec,
  Decision,
  DecideRequest,
  RateLimitStore,
  bucketTtlMs,
} from './rate-limit.store.js';

/** What the store needs of RedisService (a narrow seam, so tests can pass the real service or a cluster one). */
export interface ScriptRunner {
  script<T = unknown>(
    name: string,
    keys: readonly string[],
    args: readonly (string | number)[],
  ): Promise<T>;
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
  /**
   * Fast-path decisions that arrive in one event-loop turn go to Redis together, in one `ratelimit_decide_batch`
   * call per hash slot (`auto`, the default; a lone decision keeps the one-request call); `always` sends even a
   * lone decision through the batch script (tests run the table that way); `off` never batches.
   */
  batch?: 'auto' | 'always' | 'off';
  /** Most decisions in one batch call (default 128). */
  maxBatch?: number;
}

/** A bucket spec already in a batch call: its bucket, the degrade factor it was sent with, its 1-based index. */
interface SpecRef {
  b: BucketSpec;
  factor: number;
  index: number;
}

interface Pending {
  req: DecideRequest;
  resolve: (d: Decision) => void;
  reject: (err: unknown) => void;
}

const FLAG_SHADOW = 1;
const FLAG_SOFT = 2;
const FLAG_DEGRADABLE = 4;
const FLAG_PENALTY = 8;

/**
 * Rate-limit state in Redis: ONE `ratelimit_decide` call per request when
 * every key shares a hash slot (the default `{<env>:<service>}` tag); the
 * fast-path decisions (GCRA, no penalty) that arrive in one event-loop turn
 * share ONE `ratelimit_decide_batch` call per slot, each request decided in
 * turn as if it had its own call. Under
 * Redis Cluster, buckets of other slots (`scope: subject`) are decided per
 * slot in parallel and each slot reserves its charge; when any slot refuses,
 * the slots that charged are refunded (`ratelimit_refund`). Bound on error:
 * the refund never over-admits; between reserve and refund (one round trip)
 * other requests may see up to the reserved tokens missing, and if the refund
 * itself fails those tokens come back only by refill (cost × interval).
 */
export class RedisRateLimitStore implements RateLimitStore {
  private readonly appClock: Clock;
  private readonly batch: 'auto' | 'always' | 'off';
  private readonly maxBatch: number;
  /** Fast-path decisions waiting for the end of this event-loop turn, per hash slot ('' on a standalone Redis). */
  private pending = new Map<string, Pending[]>();
  private flushScheduled = false;

  constructor(
    private readonly redis: ScriptRunner,
    private readonly opts: RedisStoreOptions,
  ) {
    this.appClock = opts.appClock ?? systemClock;
    this.batch = opts.batch ?? 'auto';
    this.maxBatch = Math.max(1, opts.maxBatch ?? 128);
  }

  decide(req: DecideRequest): Promise<Decision> {
    if (!this.opts.cluster) return this.decideSlot(req);
    const groups = groupBy(req.buckets);
    return groups.length === 1 ? this.decideSlot(req) : this.decideAcrossSlots(req, groups);
  }

  private async decideAcrossSlots(req: DecideRequest, groups: number[][]): Promise<Decision> {
    const work = this.decideSlots(req, groups);
    if (!this.opts.deadlineMs) return work;
    // Several calls must not add up past the command timeout: past it the request is decided by the
    // failMode; a reservation that lands later comes back by refill (the bound documented above).
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new RedisUnavailableError(
              'ratelimit_decide',
              `multi-slot decision over ${this.opts.deadlineMs} ms`,
            ),
          ),
        this.opts.deadlineMs,
      );
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
    const soft =
      req.degradeAt > 0 ? groups.findIndex((g) => g.some((i) => req.buckets[i]!.soft)) : -1;
    const first = soft >= 0 ? await Promise.allSettled([this.call(req, groups[soft]!)]) : [];
    const hint =
      first[0]?.status === 'fulfilled' ? { ...req, degradedHint: first[0].value.degraded } : req;
    const rest = await Promise.allSettled(
      groups.map((idx, g) => (g === soft ? undefined : this.call(hint, idx))),
    );
    const settled = rest.map((r, g) =>
      g === soft ? first[0]! : r,
    ) as PromiseSettledResult<Decision>[];
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
        if (
          !o.allowed &&
          !req.buckets[i]!.shadow &&
          (blocker < 0 || o.retryAfterMs > buckets[blocker]!.retryAfterMs)
        )
          blocker = i;
      });
    }
    return { allowed, blocker, degraded, nowMs: Math.max(...parts.map((p) => p.nowMs)), buckets };
  }

  /** The buckets `idx` of one slot of a multi-slot decision, decided as a request of their own; the blocker mapped back. */
  private async call(req: DecideRequest, idx: number[]): Promise<Decision> {
    const d = await this.decideSlot(
      idx.length === req.buckets.length
        ? req
        : { ...req, buckets: idx.map((i) => req.buckets[i]!) },
    );
    if (d.blocker >= 0) d.blocker = idx[d.blocker]!;
    return d;
  }

  /** Buckets of one hash slot: batched when they all take the fast path, else their own call. */
  private decideSlot(sub: DecideRequest): Promise<Decision> {
    const fast =
      this.opts.fastPath !== false &&
      sub.buckets.length > 0 &&
      sub.buckets.every((b) => b.kind === 'g' && !(b.penaltyKey && b.penalty));
    return fast && this.batch !== 'off' ? this.enqueue(sub) : this.single(sub, fast);
  }

  private clockArgs(): (string | number)[] {
    return [Math.round(this.appClock.now() * 1000), this.opts.clock === 'redis' ? 'r' : 'a'];
  }

  /** Queues a fast-path decision for the batch call at the end of this event-loop turn. */
  private enqueue(req: DecideRequest): Promise<Decision> {
    return new Promise<Decision>((resolve, reject) => {
      const slot = this.opts.cluster ? req.buckets[0]!.group : '';
      const list = this.pending.get(slot);
      if (list) list.push({ req, resolve, reject });
      else this.pending.set(slot, [{ req, resolve, reject }]);
      if (!this.flushScheduled) {
        this.flushScheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    this.flushScheduled = false;
    const slots = this.pending;
    this.pending = new Map();
    for (const list of slots.values()) {
      for (let i = 0; i < list.length; i += this.maxBatch) {
        const chunk = list.slice(i, i + this.maxBatch);
        if (chunk.length === 1 && this.batch === 'auto')
          this.single(chunk[0]!.req, true).then(chunk[0]!.resolve, chunk[0]!.reject);
        else this.batchCall(chunk).catch((err: unknown) => chunk.forEach((p) => p.reject(err)));
      }
    }
  }

  /**
   * One `ratelimit_decide_batch` call for several requests (one hash slot): each distinct key read and written
   * once; each request decided in turn on what the requests before it left, then its figures taken from
   * bucket-math.ts on the state it saw, as for a one-request call. Equal buckets (specs) and equal requests
   * (shapes) are sent once, so a request usually costs one argument.
   */
  private async batchCall(list: Pending[]): Promise<void> {
    const keys: string[] = [];
    const byKey = new Map<string, { ki: number; refs: SpecRef[] }>();
    const specs: (string | number)[] = [];
    let specCount = 0;
    const shapeIndex = new Map<string, number>();
    const shapes: (string | number)[] = [];
    const order: number[] = [];
    for (const { req } of list) {
      const factor = req.degradeAt > 0 || req.degradedHint ? req.degradeFactor : 1;
      const at = req.degradeAt > 0 ? req.degradeAt : 0;
      let sig = `${at} ${req.degradedHint ? 1 : 0}`;
      const idx: number[] = new Array<number>(req.buckets.length);
      for (let i = 0; i < req.buckets.length; i++) {
        const b = req.buckets[i]!;
        let k = byKey.get(b.key);
        if (!k) byKey.set(b.key, (k = { ki: keys.push(b.key), refs: [] }));
        let ref = k.refs.find(
          (r) =>
            r.b.capacity === b.capacity &&
            r.b.intervalUs === b.intervalUs &&
            r.b.cost === b.cost &&
            r.b.shadow === b.shadow &&
            r.b.soft === b.soft &&
            r.b.degradable === b.degradable &&
            r.factor === factor,
        );
        if (!ref) {
          k.refs.push((ref = { b, factor, index: ++specCount }));
          // A spec's ARGV: key index, then the bucket's fast-path values (its degraded ones always, when degradable).
          specs.push(k.ki);
          pushFastBucket(specs, b, b.degradable, factor, specs);
        }
        idx[i] = ref.index;
        sig += ` ${ref.index}`;
      }
      let shape = shapeIndex.get(sig);
      if (shape === undefined) {
        shapeIndex.set(sig, (shape = shapeIndex.size + 1));
        shapes.push(idx.length, at, req.degradedHint ? '1' : '0', ...idx);
      }
      order.push(shape);
    }
    const out = await this.redis.script<(string | number | null)[]>(
      'ratelimit_decide_batch',
      keys,
      [...this.clockArgs(), specCount, shapeIndex.size, list.length, ...specs, ...shapes, ...order],
    );
    // Replay the batch with bucket-math.ts from the values read: each request's state is what the ones before
    // it left, as in the script; each decision must match the script's.
    const values = new Map<string, number | undefined>();
    for (let i = 0; i < keys.length; i++)
      values.set(keys[i]!, out[i] === null ? undefined : Number(out[i]));
    const now = out[keys.length + list.length] as number;
    for (let r = 0; r < list.length; r++) {
      const p = list[r]!;
      const writes: Write[] = [];
      const state: BucketState[] = new Array<BucketState>(p.req.buckets.length);
      for (let i = 0; i < state.length; i++)
        state[i] = { value: values.get(p.req.buckets[i]!.key) };
      const d = decideBuckets(p.req, state, now, writes);
      const code = out[keys.length + r] as number;
      if (d.allowed !== (code % 2 === 1) || d.degraded !== code >= 2) {
        const err = new RedisScriptError(
          'ratelimit_decide_batch',
          `request ${r + 1} of ${list.length}: the script decided allowed=${code % 2} degraded=${code >= 2 ? 1 : 0}, bucket-math.ts on the same state allowed=${d.allowed} degraded=${d.degraded}`,
        );
        for (const rest of list.slice(r)) rest.reject(err);
        return;
      }
      for (const w of writes) values.set(w.key, w.value as number);
      p.resolve(d);
    }
  }

  /**
   * One `ratelimit_decide` call for one request's buckets (one hash slot). The script decides and writes, and
   * returns the state it read; the figures come from bucket-math.ts on that state (the same arithmetic),
   * checked against the script's own allowed / degraded.
   */
  private async single(sub: DecideRequest, fast: boolean): Promise<Decision> {
    const { buckets } = sub;
    const clock = this.clockArgs();
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
      (state[i] ??= {}).value =
        v === null
          ? undefined
          : b.kind === 't'
            ? { t: Number(v), ts: Number(w) }
            : { count: Number(v), expiresAtUs: Number(w) };
    }
    const d = decideBuckets(sub, state, out[o] as number);
    if (d.allowed !== (out[o + 1] === 1) || d.degraded !== (out[o + 2] === 1)) {
      throw new RedisScriptError(
        'ratelimit_decide',
        `the script decided allowed=${out[o + 1]} degraded=${out[o + 2]}, bucket-math.ts on the same state allowed=${d.allowed} degraded=${d.degraded}`,
      );
    }
    return d;
  }

  private async refund(
    req: DecideRequest,
    groups: number[][],
    parts: (Decision | undefined)[],
  ): Promise<void> {
    await Promise.all(
      parts.map(async (d, g) => {
        if (!d?.allowed) return;
        const keys: string[] = [];
        const args: (string | number)[] = [
          Math.round(this.appClock.now() * 1000),
          this.opts.clock === 'redis' ? 'r' : 'a',
        ];
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
function fastArgs(
  req: DecideRequest,
  clock: (string | number)[],
): { keys: string[]; args: (string | number)[]; penalties: number } {
  const degrade = req.degradeAt > 0 || req.degradedHint;
  const keys: string[] = [];
  const args = degrade
    ? [...clock, 'd', req.degradeAt > 0 ? req.degradeAt : 0, req.degradedHint ? '1' : '0']
    : [...clock, 'g'];
  const degraded: number[] = [];
  for (const b of req.buckets) {
    keys.push(b.key);
    pushFastBucket(args, b, degrade, req.degradeFactor, degraded);
  }
  for (const v of degraded) args.push(v);
  return { keys, args, penalties: 0 };
}

/**
 * A fast-path bucket's ARGV: tolerance and increment µs at multiplier 1, flags, TTL ms to `args`; when the
 * request degrades and the bucket is degradable, tolerance and increment at the degrade factor to `degraded`.
 */
function pushFastBucket(
  args: (string | number)[],
  b: BucketSpec,
  degrade: boolean,
  factor: number,
  degraded: (string | number)[],
): void {
  const flags =
    (b.shadow ? FLAG_SHADOW : 0) | (b.soft ? FLAG_SOFT : 0) | (b.degradable ? FLAG_DEGRADABLE : 0);
  args.push(b.capacity * b.intervalUs, b.cost * b.intervalUs, flags, bucketTtlMs(b));
  if (degrade && b.degradable) {
    const m = 1 * factor;
    const T = b.intervalUs / m;
    degraded.push(b.capacity * m * T, b.cost * T);
  }
}

/** ARGV of the general path: every bucket's parameters, then the penalties. */
function generalArgs(
  req: DecideRequest,
  clock: (string | number)[],
): { keys: string[]; args: (string | number)[]; penalties: number } {
  const keys: string[] = [];
  const args = [
    ...clock,
    'x',
    req.degradeAt > 0 ? req.degradeAt : 0,
    req.degradeFactor,
    req.degradedHint ? '1' : '0',
    req.buckets.length,
  ];
  const penalized = req.buckets.filter((b) => b.penaltyKey && b.penalty);
  for (const b of req.buckets) {
    keys.push(b.key);
    const flags =
      (b.shadow ? FLAG_SHADOW : 0) |
      (b.soft ? FLAG_SOFT : 0) |
      (b.degradable ? FLAG_DEGRADABLE : 0) |
      (b.penaltyKey && b.penalty ? FLAG_PENALTY : 0);
    args.push(b.kind, b.capacity, b.intervalUs, b.cost, flags, bucketTtlMs(b));
  }
  for (const b of penalized) {
    keys.push(b.penaltyKey!);
    args.push(
      b.penalty!.threshold,
      b.penalty!.factor,
      b.penalty!.decayUs,
      b.penalty!.floor,
      b.penalty!.maxStrikes,
      b.pendingStrikes ?? 0,
    );
  }
  return { keys, args, penalties: penalized.length };
}
