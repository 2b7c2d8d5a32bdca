import { createHash } from 'node:crypto';
import type { Clock } from '../../../common/clock.js';
import type { ResultCacheStore } from '../store/result-cache.store.js';
import { HotAnswers } from './hot-answers.js';

/** Request keys whose store key is remembered (see AnswerCache.key). */
const KEY_MEMO = 10_000;

/** Injection token of the shield's AnswerCache. */
export const ANSWER_CACHE = Symbol('ANSWER_CACHE');

/** A cached answer: the handler's result (or an empty answer), the data generation it was read at, and until when it is fresh. */
export interface CachedAnswer {
  /** The answer body (for a null entry of an id route: null). */
  body: unknown;
  /** True for a null-cache entry (no hits, unknown id). */
  empty: boolean;
  /** Data generation the backend answered at; a different current generation makes the entry stale. */
  gen: string;
  /** Epoch ms until which the entry is fresh; kept longer for stale serving. */
  freshUntil: number;
}

export interface CacheTtl {
  freshMs: number;
  /** Extra time the entry is kept after it stops being fresh (stale serving). */
  staleMs: number;
  /** ± fraction applied to freshMs. */
  jitter: number;
}

interface Wire {
  g: string;
  f: number;
  e: 0 | 1;
  b: unknown;
}

/**
 * The result and null caches of the shield over a ResultCacheStore. It never
 * fails a request: while the store is unreachable it is bypassed (a miss,
 * nothing written) and is not asked again for `backoffMs`.
 */
export class AnswerCache {
  private downUntil = 0;
  private readonly hot: HotAnswers<CachedAnswer>;
  private readonly keys = new Map<string, string>();

  constructor(
    private readonly store: ResultCacheStore,
    private readonly prefix: string,
    private readonly onError: (op: 'get' | 'set', err: unknown) => void,
    private readonly opts: {
      isUp: () => boolean;
      backoffMs: number;
      /** Time of freshness and back-off; randomness of the TTL jitter. */
      clock: Clock;
      /** Fresh answers kept in process (see HotAnswers); 0 = none. */
      hotEntries?: number;
    },
  ) {
    this.hot = new HotAnswers(opts.hotEntries ?? 0);
  }

  /**
   * Store key of a normalised request key (hashed: no query text in Redis keys). With `app` (a route whose
   * cacheScope is `app`; '' for unsigned requests) the app is hashed in too, so each app has its own entries
   * and no app id shows in the key. Hot keys repeat, so the keys of recent requests are kept (bounded; a
   * flood of new keys only empties the memo).
   */
  key(policy: string, requestKey: string, app?: string): string {
    // App ids have no NUL; a shared key's input starts with one, an app key's with `a`: never equal.
    const input = app === undefined ? `\u0000${requestKey}` : `a${app}\u0000${requestKey}`;
    const id = `${policy}\u0000${input}`;
    let k = this.keys.get(id);
    if (k === undefined) {
      if (this.keys.size >= KEY_MEMO) this.keys.clear();
      k = `${this.prefix}:${policy}:${createHash('sha256').update(input).digest('base64url').slice(0, 32)}`;
      this.keys.set(id, k);
    }
    return k;
  }

  /** True while the store is being bypassed. */
  get bypassed(): boolean {
    return !this.opts.isUp() || this.now() < this.downUntil;
  }

  /**
   * The cached answer of `key`. With `gen` (the current data generation), a fresh
   * answer of that generation may come from the in-process copy (HotAnswers).
   */
  async get(key: string, gen?: string): Promise<CachedAnswer | undefined> {
    if (this.bypassed) return undefined;
    if (gen !== undefined) {
      const hot = this.hot.get(key, gen, this.now());
      if (hot !== undefined) return hot;
    }
    try {
      const raw = await this.store.get(key);
      if (raw === undefined) return undefined;
      const w = JSON.parse(raw) as Wire;
      const entry: CachedAnswer = { body: w.b, empty: w.e === 1, gen: w.g, freshUntil: w.f };
      if (gen !== undefined) this.hot.put(key, entry, gen, this.now());
      return entry;
    } catch (err) {
      this.fail('get', err);
      return undefined;
    }
  }

  /** Stores an answer; `owner` is the app whose request filled it (see ResultCacheStore.set). */
  async put(
    key: string,
    answer: Omit<CachedAnswer, 'freshUntil'>,
    ttl: CacheTtl,
    owner?: string,
  ): Promise<void> {
    if (ttl.freshMs <= 0 || this.bypassed) return;
    const spread = 1 + ttl.jitter * (2 * this.opts.clock.random() - 1);
    const freshMs = Math.max(1, Math.round(ttl.freshMs * spread));
    const wire: Wire = {
      g: answer.gen,
      f: this.now() + freshMs,
      e: answer.empty ? 1 : 0,
      b: answer.body,
    };
    try {
      await this.store.set(key, JSON.stringify(wire), freshMs + ttl.staleMs, owner);
    } catch (err) {
      this.fail('set', err);
    }
  }

  private fail(op: 'get' | 'set', err: unknown): void {
    this.downUntil = this.now() + this.opts.backoffMs;
    this.onError(op, err);
  }

  private now(): number {
    return this.opts.clock.now();
  }
}
