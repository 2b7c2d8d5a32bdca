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
 * Takes slots back (`reclaimAfterMs`, with `fairShare`) from an app over its fair share for an app within its
 * share: when a call of such an app is refused (forRefusal), and while its calls wait in the queue: one timer at
 * a time, armed while calls wait for the moment the next held call reaches `reclaimAfterMs` (not a poll: it
 * fires once per held call at most), cleared when the queue empties (idle). Each waiting call of an app within its
 * share is owed one slot; the calls already stopping count as paid. The freed slot goes to the queue (SlotDesk).
 */
export class SlotReclaim {
  private readonly held = new HeldCalls();
  private timer: ReturnType<typeof setTimeout> | undefined;

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
   * its share is stopped, and its slot goes to the waiting calls once it has wound down.
   */
  forRefusal(h: { id: string; weight: number }, now: number): void {
    const after = this.afterMs();
    if (!after || !this.d.shares.fair(h.id, h.weight, this.d.limit(), now)) return;
    this.held.reclaim(now, after, (id, leaving) => id !== h.id && this.over(id, leaving, now));
  }

  /** A call is waiting in the queue: arms the timer for the next held call to reach `reclaimAfterMs`, if none is. */
  queued(): void {
    const after = this.afterMs();
    if (!after || this.timer) return;
    const now = this.d.clock.now();
    const due = this.held.nextDue(now, after);
    if (due === Infinity) return;
    this.timer = setTimeout(() => this.fire(), Math.max(1, Math.ceil(due - now)));
    this.timer.unref?.();
  }

  /** The queue is empty: no timer stays armed. */
  idle(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** A held call reached `reclaimAfterMs` while calls wait: pays what the waiting calls are owed, then re-arms. */
  private fire(): void {
    this.timer = undefined;
    const after = this.afterMs();
    if (!after) return;
    const now = this.d.clock.now();
    const limit = this.d.limit();
    const apps = [...this.d.waiting()];
    if (apps.length === 0) return;
    // A call in the queue is its app waiting for a slot, however long it has waited (its share is kept).
    for (const app of apps) this.d.shares.refused(app.id, app.weight, now);
    let owed = -this.held.stopping;
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
