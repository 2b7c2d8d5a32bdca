import type { Clock } from '../../../common/clock.js';
import type { BreakerOptions } from '../circuit-breaker.types.js';
import type { FairShare } from './fair-share.js';
import { HeldCalls } from './held-calls.js';

/** An app with calls in the wait queue: its id, the weight of its tier and how many of its calls wait. */
export interface WaitingApp {
  id: string;
  weight: number;
  waiting: number;
}

/** What taking slots back reads of its SlotDesk. */
export interface ReclaimDeps {
  clock: Clock;
  shares: FairShare;
  /** The current limit (the fair shares are of it). */
  limit(): number;
  /** The apps with calls in the wait queue. */
  waiting(): Iterable<WaitingApp>;
}

/**
 * How long (ms) a call stopped for its slot counts as paid to the waiting calls: a call whose backend honours the
 * abort winds down in milliseconds; one still holding its slot a second later ignored it (its backend hangs). It
 * keeps its slot (the backend still works for it) and keeps its app from losing more than its excess, but no longer
 * stands for a slot on its way, so the next waiting call within its share has another slot taken back.
 */
export const STOP_GRACE_MS = 1_000;

/**
 * Takes slots back (`reclaimAfterMs`, with `fairShare`) from an app over its fair share for an app within its
 * share: when a call of such an app is refused (forRefusal), and while its calls wait in the queue: one timer at
 * a time, armed while calls wait for the earliest moment a held call reaches `reclaimAfterMs` or a stopped one
 * reaches STOP_GRACE_MS (not a poll: it fires at most twice per held call), cleared when the queue empties (idle).
 * Each waiting call of an app within its share is owed one slot; the calls stopped within STOP_GRACE_MS and not
 * wound down count as paid. The freed slot goes to the queue (SlotDesk).
 */
export class SlotReclaim {
  private readonly held = new HeldCalls();
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** When the armed timer fires (ms). */
  private timerAt = Infinity;

  constructor(
    private options: BreakerOptions,
    private readonly d: ReclaimDeps,
  ) {}

  retune(options: BreakerOptions, queued: boolean): void {
    this.options = options;
    this.idle();
    if (queued) this.queued();
  }

  /** Registers a held call (stopped with `abort`); the returned function forgets it once its slot is given back. */
  add(tenant: string, abort: (reason: unknown) => void, queued: boolean): () => void {
    const forget = this.held.add(tenant, this.d.clock.now(), abort);
    if (queued) this.queued();
    return forget;
  }

  /**
   * `h`, within its fair share, found no slot: the longest-held call (held `reclaimAfterMs`) of another app over
   * its share is stopped, and its slot goes to the waiting calls once it has wound down. `queued`: calls wait.
   */
  forRefusal(h: { id: string; weight: number }, now: number, queued: boolean): void {
    const after = this.afterMs();
    if (!after || !this.d.shares.fair(h.id, h.weight, this.d.limit(), now)) return;
    const stopped = this.held.reclaim(now, after, (id, l) => id !== h.id && this.over(id, l, now));
    // Its grace may end before the armed timer fires, or while none is armed (nothing else was due): the waiting
    // calls are owed a slot again then.
    if (stopped && queued) this.queued();
  }

  /**
   * A call is waiting in the queue (or a call was held or stopped while calls wait): arms the timer for the next
   * held call to reach `reclaimAfterMs` or stopped call to reach STOP_GRACE_MS, unless it is armed for earlier.
   */
  queued(): void {
    const after = this.afterMs();
    if (!after) return;
    const now = this.d.clock.now();
    const due = this.held.nextDue(now, after, STOP_GRACE_MS);
    if (this.timer && this.timerAt <= due) return;
    this.idle();
    if (due === Infinity) return;
    this.timerAt = due;
    this.timer = setTimeout(() => this.fire(), Math.max(1, Math.ceil(due - now)));
    this.timer.unref?.();
  }

  /** The queue is empty: no timer stays armed. */
  idle(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.timerAt = Infinity;
  }

  /**
   * A held call reached `reclaimAfterMs`, or a stopped one STOP_GRACE_MS, while calls wait: pays what the waiting
   * calls are owed, then re-arms.
   */
  private fire(): void {
    this.idle();
    const after = this.afterMs();
    if (!after) return;
    const now = this.d.clock.now();
    const limit = this.d.limit();
    const apps = [...this.d.waiting()];
    if (apps.length === 0) return;
    // A call in the queue is its app waiting for a slot, however long it has waited (its share is kept).
    for (const app of apps) this.d.shares.refused(app.id, app.weight, now);
    let owed = -this.held.paid(now, STOP_GRACE_MS);
    for (const app of apps)
      if (this.d.shares.fair(app.id, app.weight, limit, now)) owed += app.waiting;
    while (owed-- > 0 && this.held.reclaim(now, after, (id, l) => this.over(id, l, now)));
    this.queued();
  }

  private over(tenant: string, leaving: number, now: number): boolean {
    return this.d.shares.over(tenant, this.d.limit(), now, leaving);
  }

  /** `reclaimAfterMs` when slots may be taken back (with `fairShare`), else 0. */
  private afterMs(): number {
    const after = this.options.reclaimAfterMs;
    return after > 0 && this.options.fairShare ? after : 0;
  }
}
