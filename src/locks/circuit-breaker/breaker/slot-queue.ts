interface Waiter {
  wake: (got: boolean) => void;
  timer: ReturnType<typeof setTimeout>;
}

/**
 * Calls waiting, in order, for a slot of a full bulkhead: at most `max` of
 * them, each for at most its `maxWaitMs` (then it is told no and answered 503
 * at once). A freed slot is handed to the head (`handOff`), which takes it
 * before any newcomer can; a caller that goes away leaves the queue.
 */
export class SlotQueue {
  private readonly waiters: Waiter[] = [];
  /** Waiters woken for a freed slot that have not taken it yet: newcomers must not take it first. */
  private handedOff = 0;

  /** `onChange` hears the number of waiting calls after every change (for the gauge). */
  constructor(private readonly onChange: (waiting: number) => void = () => undefined) {}

  get waiting(): number {
    return this.waiters.length;
  }

  /** Calls woken for a freed slot that have not taken it yet. */
  get pending(): number {
    return this.handedOff;
  }

  /** True while calls wait or a freed slot is on its way to one: a newcomer queues behind them. */
  get busy(): boolean {
    return this.waiters.length > 0 || this.handedOff > 0;
  }

  /**
   * Waits for a freed slot: true when one was handed over (take it, then call `took()`), false when
   * `maxWaitMs` ran out, the queue is full (`max`) or `signal` aborted (the caller went away).
   */
  wait(maxWaitMs: number, max: number, signal?: AbortSignal): Promise<boolean> {
    if (maxWaitMs <= 0 || this.waiters.length >= max || signal?.aborted)
      return Promise.resolve(false);
    return new Promise<boolean>((resolve) => {
      const leave = (): void => {
        clearTimeout(waiter.timer);
        signal?.removeEventListener('abort', leave);
        const i = this.waiters.indexOf(waiter);
        if (i >= 0) this.waiters.splice(i, 1);
        this.onChange(this.waiters.length);
        resolve(false);
      };
      const waiter: Waiter = {
        timer: setTimeout(leave, maxWaitMs),
        wake: (got) => {
          clearTimeout(waiter.timer);
          signal?.removeEventListener('abort', leave);
          resolve(got);
        },
      };
      signal?.addEventListener('abort', leave, { once: true });
      this.waiters.push(waiter);
      this.onChange(this.waiters.length);
    });
  }

  /** A slot was freed: hands it to the longest waiting call, if any. */
  handOff(): void {
    const head = this.waiters.shift();
    if (!head) return;
    this.handedOff++;
    this.onChange(this.waiters.length);
    head.wake(true);
  }

  /** The woken call took its slot (or gave it up): newcomers may take free slots again. */
  took(): void {
    if (this.handedOff > 0) this.handedOff--;
  }
}
