import type { Clock } from '../../../common/clock.js';
import { FairQueue, type QueueFull, type QueuePlace } from './fair-queue.js';

interface Waiter {
  wake: () => void;
  timer?: ReturnType<typeof setTimeout>;
}

/** The bounds of the wait, from the backend's options. */
export interface WaitBounds {
  maxWaitMs: number;
  maxWaiting: number;
  maxWaitingPerApp: number;
}

/** How a wait ended: handed a slot, or not (`why`); refused for a full queue, with the place it would have had. */
export type Waited =
  { got: true } | { got: false; why: QueueFull | 'timeout' | 'gone' | 'off'; place?: QueuePlace };

/** Who hears about the queue: its length after every change, and how long each call waited (ms, outcome). */
export interface QueueListener {
  waiting(n: number): void;
  waited(ms: number, outcome: 'slot' | 'timeout' | 'gone'): void;
}

/**
 * Calls waiting for a slot of a full bulkhead, in one FairQueue lane per app (round robin between apps, FIFO
 * within one): at most `maxWaiting` in all and `maxWaitingPerApp` per app, each for at most its `maxWaitMs`
 * (then it is told no and answered 503 at once). A freed slot is handed to the next call (`handOff`), which takes
 * it before any newcomer can; a caller that goes away leaves the queue.
 */
export class SlotQueue {
  private readonly queue = new FairQueue<Waiter>();
  /** Waiters woken for a freed slot that have not taken it yet: newcomers must not take it first. */
  private handedOff = 0;

  constructor(
    private readonly clock: Clock,
    private readonly listener: QueueListener,
  ) {}

  get waiting(): number {
    return this.queue.length;
  }

  /** Each app with calls waiting: its id, weight and how many of its calls wait. */
  apps(): IterableIterator<{ id: string; weight: number; waiting: number }> {
    return this.queue.apps();
  }

  /** Calls woken for a freed slot that have not taken it yet. */
  get pending(): number {
    return this.handedOff;
  }

  /** True while calls wait or a freed slot is on its way to one: a newcomer queues behind them. */
  get busy(): boolean {
    return this.queue.length > 0 || this.handedOff > 0;
  }

  /**
   * Waits in `app`'s lane for a freed slot: `got` when one was handed over (take it, then call `took()`), else
   * why not: the queue or the app's lane is full, `maxWaitMs` ran out, or `signal` aborted (the caller went away).
   * `onQueued` hears the call's place once it is queued.
   */
  wait(
    app: { id: string; weight: number },
    b: WaitBounds,
    signal?: AbortSignal,
    onQueued?: (place: QueuePlace) => void,
  ): Promise<Waited> {
    if (b.maxWaitMs <= 0 || signal?.aborted) return Promise.resolve({ got: false, why: 'off' });
    const t0 = this.clock.now();
    return new Promise<Waited>((resolve) => {
      const waiter: Waiter = {
        wake: () => {
          clearTimeout(waiter.timer);
          signal?.removeEventListener('abort', gone);
          this.listener.waited(this.clock.now() - t0, 'slot');
          resolve({ got: true });
        },
      };
      const leave = (why: 'timeout' | 'gone'): void => {
        clearTimeout(waiter.timer);
        signal?.removeEventListener('abort', gone);
        this.queue.remove(waiter);
        this.listener.waiting(this.queue.length);
        this.listener.waited(this.clock.now() - t0, why);
        resolve({ got: false, why });
      };
      const gone = (): void => leave('gone');
      const bounds = { max: b.maxWaiting, maxPerApp: b.maxWaitingPerApp };
      const pushed = this.queue.push(app.id, app.weight, waiter, t0, bounds);
      if (!pushed.queued) return resolve({ got: false, why: pushed.why, place: pushed.place });
      waiter.timer = setTimeout(() => leave('timeout'), b.maxWaitMs);
      signal?.addEventListener('abort', gone, { once: true });
      this.listener.waiting(this.queue.length);
      onQueued?.(pushed.place);
    });
  }

  /** A slot was freed: hands it to the next waiting call (round robin between apps), if any. */
  handOff(): void {
    const next = this.queue.shift(this.clock.now());
    if (!next) return;
    this.handedOff++;
    this.listener.waiting(this.queue.length);
    next.item.wake();
  }

  /** The woken call took its slot (or gave it up): newcomers may take free slots again. */
  took(): void {
    if (this.handedOff > 0) this.handedOff--;
  }
}
