import type { UsageWrite } from '../core/usage-keys.js';

/** Milliseconds a usage write without a settlement waits for one to ride with before it is sent on its own. */
export const USAGE_FLUSH_MS = 200;
/** Usage writes (distinct bucket × model) or callers waiting at most; past either, the buffer is sent at once. */
export const MAX_BUFFERED_USAGE = 1_024;

interface Slot {
  writes: Map<string, UsageWrite>;
  done: { resolve: () => void; reject: (err: unknown) => void }[];
}

/**
 * The usage of answers that settle no reservation (no tokens rule): instead of one `ratelimit_settle` call of its
 * own, a write waits here, per hash slot, summed with the writes of the same usage bucket and model, and rides in
 * the next settlement call of its slot (`take`), or is sent on its own (`send`) at most {@link USAGE_FLUSH_MS}
 * later: one call per flush for every answer that ended meanwhile. The totals are the same (the script adds);
 * `GET /admin/usage` sees them up to that delay later. Each caller's promise settles with the call that carried
 * its write (a failure is counted by the caller as before). Bounded by {@link MAX_BUFFERED_USAGE}.
 */
export class UsageBuffer {
  private slots = new Map<string, Slot>();
  private size = 0;
  private waiting = 0;
  private timer?: NodeJS.Timeout;
  private closed = false;

  /** `send`: one call carrying these writes of one slot; `delayMs`: the longest wait for a ride. */
  constructor(
    private readonly send: (slot: string, writes: UsageWrite[]) => Promise<unknown>,
    private readonly delayMs = USAGE_FLUSH_MS,
  ) {}

  /** Buffers `writes` of `slot`; resolves once the call that carried them answered. */
  add(slot: string, writes: readonly UsageWrite[]): Promise<void> {
    if (writes.length === 0) return Promise.resolve();
    if (this.closed) return this.send(slot, [...writes]).then(() => undefined);
    return new Promise<void>((resolve, reject) => {
      let s = this.slots.get(slot);
      if (!s) this.slots.set(slot, (s = { writes: new Map(), done: [] }));
      for (const w of writes) {
        const id = `${w.key}\n${w.model}`;
        const had = s.writes.get(id);
        if (!had) {
          s.writes.set(id, { ...w });
          this.size++;
          continue;
        }
        had.prompt += w.prompt;
        had.completion += w.completion;
        had.spend += w.spend;
        had.ttlMs = Math.max(had.ttlMs, w.ttlMs);
      }
      s.done.push({ resolve, reject });
      this.waiting++;
      if (this.size >= MAX_BUFFERED_USAGE || this.waiting >= MAX_BUFFERED_USAGE) this.flush();
      else this.timer ??= setTimeout(() => this.flush(), this.delayMs).unref();
    });
  }

  /**
   * The writes buffered for `slot`, to add to a settlement call of that slot; `carried(call)` settles their callers
   * with that call's outcome.
   */
  take(
    slot: string,
  ): { writes: UsageWrite[]; carried: (call: Promise<unknown>) => void } | undefined {
    const s = this.slots.get(slot);
    if (!s) return undefined;
    this.drop(slot, s);
    return { writes: [...s.writes.values()], carried: (call) => settle(s, call) };
  }

  /** Sends every buffered write now (each slot in one call). */
  flush(): void {
    for (const [slot, s] of [...this.slots]) {
      this.drop(slot, s);
      settle(s, this.send(slot, [...s.writes.values()]));
    }
  }

  /** At shutdown: sends what is buffered; later writes go at once. */
  close(): void {
    this.closed = true;
    this.flush();
  }

  private drop(slot: string, s: Slot): void {
    this.slots.delete(slot);
    this.size -= s.writes.size;
    this.waiting -= s.done.length;
    if (this.slots.size === 0 && this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
  }
}

function settle(s: Slot, call: Promise<unknown>): void {
  call.then(
    () => s.done.forEach((w) => w.resolve()),
    (err: unknown) => s.done.forEach((w) => w.reject(err)),
  );
}
