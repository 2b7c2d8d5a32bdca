import { RedisScriptError } from '../../../redis/redis.errors.js';
import { BucketState, Write, decideBuckets } from '../core/bucket-math.js';
import {
  Decision,
  DecideRequest,
  duplicateDecision,
  reenteredDecision,
} from '../core/decision.types.js';
import { batchArgs } from './redis-batch-args.js';
import { num, riskStateAt } from './redis-replies.js';
import type { Argv, RedisStoreOptions, ScriptRunner } from './redis-store.options.js';
import { touched } from '../core/risk-math.js';
import { ruleKind } from '../core/rule-kinds.js';
import type { Stored } from '../core/rule-kind.types.js';
import type { RiskState } from '../core/risk.types.js';

interface Pending {
  req: DecideRequest;
  resolve: (d: Decision) => void;
  reject: (err: unknown) => void;
}

/**
 * Decisions without penalty (GCRA, concurrency, tokens; risk-scored or not) that arrive in one event-loop turn
 * go to Redis together: ONE `ratelimit_decide_batch` call per hash slot, each
 * request decided in turn as if it had its own call. A lone decision keeps
 * the one-request call (`single`) unless the mode is `always`.
 */
export class SameTurnBatcher {
  private readonly mode: 'auto' | 'always';
  private readonly maxBatch: number;
  /** Decisions waiting for the end of this event-loop turn, per hash slot ('' on a standalone Redis). */
  private pending = new Map<string, Pending[]>();
  private flushScheduled = false;

  constructor(
    private readonly redis: ScriptRunner,
    private readonly opts: Pick<RedisStoreOptions, 'cluster' | 'maxBatch'> & {
      mode: 'auto' | 'always';
      clockArgs: () => Argv;
      single: (req: DecideRequest) => Promise<Decision>;
    },
  ) {
    this.mode = opts.mode;
    this.maxBatch = Math.max(1, opts.maxBatch ?? 128);
  }

  /** Queues a fast-path decision for the batch call at the end of this event-loop turn. */
  enqueue(req: DecideRequest): Promise<Decision> {
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
        if (chunk.length === 1 && this.mode === 'auto')
          this.opts.single(chunk[0]!.req).then(chunk[0]!.resolve, chunk[0]!.reject);
        else this.call(chunk).catch((err: unknown) => chunk.forEach((p) => p.reject(err)));
      }
    }
  }

  /**
   * One `ratelimit_decide_batch` call for several requests (one hash slot): each distinct key read and written
   * once; each request decided in turn on what the requests before it left, then its figures taken from
   * bucket-math.ts on the state it saw, as for a one-request call.
   */
  private async call(list: Pending[]): Promise<void> {
    const { keys, args, records } = batchArgs(list, this.opts.clockArgs());
    const out = await this.redis.script<(string | number | null)[]>(
      'ratelimit_decide_batch',
      keys,
      args,
    );
    // Replay the batch with bucket-math.ts from the values read: each request's state is what the ones before
    // it left (charges and risk-record touches), as in the script; each decision must match the script's.
    const nk = keys.length - records;
    const base = nk + 4 * records;
    const now = out[base + list.length] as number;
    // A hash kind's key (concurrency, tokens) replies its first field in place, its second after `now`.
    const hashKinds = new Map<string, string>();
    for (const p of list)
      for (const b of p.req.buckets) if (b.kind !== 'g') hashKinds.set(b.key, b.kind);
    const values = new Map<string, Stored | undefined>();
    let x = base + list.length + 1;
    for (let i = 0; i < nk; i++) {
      const kind = hashKinds.get(keys[i]!);
      values.set(keys[i]!, kind ? ruleKind(kind).fromReply([out[i], out[x++]]) : num(out[i]));
    }
    const risk = new Map<string, RiskState>();
    for (let j = 0; j < records; j++) risk.set(keys[nk + j]!, riskStateAt(out, nk + 4 * j));
    for (let r = 0; r < list.length; r++) {
      const p = list[r]!;
      const code = out[base + r] as number;
      if (code < 0) {
        // -1 a duplicate, -2 a re-entry on a kept charge: nothing decided, charged or touched.
        const ms = Math.floor(now / 1000);
        p.resolve(code === -1 ? duplicateDecision(ms) : reenteredDecision(ms));
        continue;
      }
      const writes: Write[] = [];
      const state: BucketState[] = new Array<BucketState>(p.req.buckets.length);
      for (let i = 0; i < state.length; i++)
        state[i] = { value: values.get(p.req.buckets[i]!.key) };
      const seen = p.req.risk ? p.req.risk.keys.map((k) => risk.get(k)) : [];
      const d = decideBuckets(p.req, state, now, writes, seen);
      // code = allowed + 2 degraded + 4 notify + 8 (blocker + 1), the blocker only for a refusal with told keys
      const degraded = (code & 2) === 2;
      const blocker = (code >> 3) - 1;
      const expected = p.req.told && !d.allowed ? d.blocker : -1;
      if (d.allowed !== (code % 2 === 1) || d.degraded !== degraded || blocker !== expected) {
        const err = new RedisScriptError(
          'ratelimit_decide_batch',
          `request ${r + 1} of ${list.length}: the script decided allowed=${code % 2} degraded=${degraded ? 1 : 0} blocker=${blocker}, bucket-math.ts on the same state allowed=${d.allowed} degraded=${d.degraded} blocker=${expected}`,
        );
        for (const rest of list.slice(r)) rest.reject(err);
        return;
      }
      for (const w of writes) values.set(w.key, w.value);
      if (p.req.risk) {
        for (let j = 0; j < seen.length; j++) {
          const t = touched(seen[j], now, p.req.risk.params);
          if (t) risk.set(p.req.risk.keys[j]!, t);
        }
      }
      if (expected >= 0) d.notify = (code & 4) === 4;
      p.resolve(d);
    }
  }
}
