/**
 * Collects what is asked in one event-loop turn, per hash slot, and sends each slot's items in ONE call when the
 * turn ends (setImmediate): the lease releases and token settlements of the answers that end together. Each
 * caller's promise settles with its slot's call; on a failure every caller of that call sees the error (a lease
 * nobody gave back expires by itself; a settlement not made leaves its reservation charged until its window ends).
 */
export class TurnBatcher<T> {
  private pending = new Map<string, { items: T[]; done: Waiter[] }>();
  private scheduled = false;

  /** `send`: one call for the items of one slot, in the order they were asked for. */
  constructor(private readonly send: (items: T[]) => Promise<unknown>) {}

  /** Queues `items` of slot `slot` ('' on a standalone Redis) for the call at the end of this turn. */
  add(slot: string, items: readonly T[]): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      let s = this.pending.get(slot);
      if (!s) this.pending.set(slot, (s = { items: [], done: [] }));
      s.items.push(...items);
      s.done.push({ resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    this.scheduled = false;
    const slots = this.pending;
    this.pending = new Map();
    for (const { items, done } of slots.values()) {
      this.send(items).then(
        () => done.forEach((w) => w.resolve()),
        (err: unknown) => done.forEach((w) => w.reject(err)),
      );
    }
  }
}

interface Waiter {
  resolve: () => void;
  reject: (err: unknown) => void;
}
