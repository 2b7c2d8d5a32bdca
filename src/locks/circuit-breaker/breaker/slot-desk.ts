import type { Clock } from '../../../common/clock.js';
import { ConcurrencyLimit, type LimitSignal } from '../adaptive/concurrency-limit.js';
import type { BreakerOptions } from '../circuit-breaker.types.js';
import { Bulkhead } from './bulkhead.js';
import type { QueuePlace } from './fair-queue.js';
import { type QueueListener, SlotQueue, type Waited } from './slot-queue.js';
import { SlotReclaim } from './slot-reclaim.js';

/** Who asks for a slot, with the weight of its tier in the fair share. */
export interface Holder {
  id: string;
  weight: number;
}

/**
 * The slots of one backend: a Bulkhead whose size is the ConcurrencyLimit
 * (`capacity`, or the adaptive limit within it), fair between tenants, and a
 * SlotQueue where calls that find it full may wait, round robin between apps. A
 * freed slot (or a higher limit) goes to the waiting calls first. With
 * `reclaimAfterMs`, slots are taken back for apps within their share that
 * are refused or wait (SlotReclaim).
 */
export class SlotDesk {
  private readonly bulkhead: Bulkhead;
  private readonly queue: SlotQueue;
  private readonly reclaim: SlotReclaim;
  readonly limit: ConcurrencyLimit;

  constructor(
    private options: BreakerOptions,
    private readonly clock: Clock,
    onSlots: (inFlight: number) => void,
    queue: QueueListener,
  ) {
    this.limit = new ConcurrencyLimit(options, clock);
    this.queue = new SlotQueue(clock, {
      waiting: (n) => {
        queue.waiting(n);
        if (n === 0) this.reclaim.idle(); // no timer outlives the wait
      },
      waited: (ms, outcome) => queue.waited(ms, outcome),
    });
    this.bulkhead = new Bulkhead((n) => {
      onSlots(n);
      this.passOn();
    });
    this.reclaim = new SlotReclaim(options, {
      clock,
      shares: this.bulkhead.shares,
      limit: () => this.limit.limit,
      waiting: () => this.queue.apps(),
    });
  }

  get inFlight(): number {
    return this.bulkhead.inFlight;
  }

  get waiting(): number {
    return this.queue.waiting;
  }

  retune(options: BreakerOptions): void {
    this.options = options;
    this.limit.retune(options);
    this.reclaim.retune(options, this.queue.waiting > 0);
    this.passOn();
  }

  /**
   * Whether `h` may take a slot now: below the limit, within its fair share, and — unless the queue handed
   * the slot to it — behind nobody waiting. A refusal marks the tenant waiting (fair share).
   */
  free(h: Holder, handedOff: boolean): boolean {
    const now = this.clock.now();
    if (!handedOff && this.queue.busy) {
      this.bulkhead.shares.refused(h.id, h.weight, now);
      this.reclaim.forRefusal(h, now, this.queue.waiting > 0);
      return false;
    }
    const o = { capacity: this.limit.limit, fair: this.options.fairShare };
    if (this.bulkhead.admits(h.id, h.weight, o, now)) return true;
    this.reclaim.forRefusal(h, now, this.queue.waiting > 0);
    return false;
  }

  /** Whether `h` is within its fair share of the limit (so it may wait for a slot rather than be refused). */
  fair(h: Holder): boolean {
    if (!this.options.fairShare) return true;
    return this.bulkhead.shares.fair(h.id, h.weight, this.limit.limit, this.clock.now());
  }

  /**
   * Waits in `h`'s lane (maxWaitMs, maxWaiting, maxWaitingPerApp) for a freed slot; `got` when one was handed
   * over: take it with hold(). `onQueued` hears the call's place once it is queued. While it waits, held calls
   * of apps over their share that reach `reclaimAfterMs` are taken back for it (SlotReclaim).
   */
  wait(h: Holder, signal?: AbortSignal, onQueued?: (place: QueuePlace) => void): Promise<Waited> {
    return this.queue.wait(h, this.options, signal, (place) => {
      this.reclaim.queued();
      onQueued?.(place);
    });
  }

  /** A call handed a slot will not take it: the slot goes on to the next waiting call. */
  declined(): void {
    this.queue.took();
    this.passOn();
  }

  /**
   * Starts the work holding a slot until it settled, or until `released` resolves first (the backend is done);
   * `handedOff`: the slot came from the queue.
   */
  hold<T>(
    start: () => Promise<T>,
    h: Holder,
    handedOff: boolean,
    released?: Promise<void>,
    abort?: (reason: unknown) => void,
  ): Promise<T> {
    const work = this.bulkhead.hold(start, { ...h, now: () => this.clock.now() }, released);
    if (abort) {
      const forget = this.reclaim.add(h.id, abort, this.queue.waiting > 0);
      work.then(forget, forget);
      void released?.then(forget);
    }
    if (handedOff) this.declined(); // taken: newcomers may take free slots again
    return work;
  }

  /** Feeds the limit one finished call; true when the limit may have moved (then waiting calls may go). */
  record(signal: LimitSignal, rttMs: number, inFlight: number): boolean {
    const moved = this.limit.record(signal, rttMs, inFlight);
    if (moved) this.passOn();
    return moved;
  }

  /** Hands free slots to waiting calls, in order. */
  private passOn(): void {
    while (this.queue.waiting > 0 && this.bulkhead.inFlight + this.queue.pending < this.limit.limit)
      this.queue.handOff();
  }
}
