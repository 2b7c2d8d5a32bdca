/** Where a call stands (or would have stood) in a backend's wait queue: 1 = next; `length` calls wait in all. */
export interface QueuePlace {
  position: number;
  length: number;
}

/** Why a call got no place: the whole queue (`maxWaiting`) or its app's lane (`maxWaitingPerApp`) is full. */
export type QueueFull = 'full' | 'app_full';

/** The answer to push(): queued at `place`, or refused, with the place it would have taken. */
export type Pushed =
  { queued: true; place: QueuePlace } | { queued: false; why: QueueFull; place: QueuePlace };

interface Lane<T> {
  items: { item: T; at: number }[];
  weight: number;
  /** Deficit round robin: turns left in the current round (a weight below 1 accumulates over rounds). */
  deficit: number;
}

/**
 * The calls waiting for a backend's slots, one lane (FIFO) per fairness key (the app), served by deficit round
 * robin: each app in turn takes `weight` calls per round, so one app's backlog cannot starve another's. Pure (no
 * timers): the caller passes `now` and removes items that gave up. At most `max` items in all and `maxPerApp` per
 * lane; lanes exist only while they hold an item, so the map is bounded by `max`.
 */
export class FairQueue<T> {
  private readonly lanes = new Map<string, Lane<T>>();
  /** The apps with waiting items, in round-robin order, and whose turn it is. */
  private ring: string[] = [];
  private cursor = 0;
  private size = 0;

  get length(): number {
    return this.size;
  }

  /** Items waiting in `app`'s lane. */
  waitingOf(app: string): number {
    return this.lanes.get(app)?.items.length ?? 0;
  }

  /** Each app with items waiting: its id, weight and how many of its items wait. */
  *apps(): IterableIterator<{ id: string; weight: number; waiting: number }> {
    for (const [id, lane] of this.lanes)
      yield { id, weight: lane.weight, waiting: lane.items.length };
  }

  /** Queues `item` of `app` (weight of its tier, > 0) at the back of its lane, within the bounds. */
  push(
    app: string,
    weight: number,
    item: T,
    now: number,
    b: { max: number; maxPerApp: number },
  ): Pushed {
    const own = this.waitingOf(app);
    const place = { position: this.estimate(app, weight, own), length: this.size };
    if (this.size >= b.max) return { queued: false, why: 'full', place };
    if (own >= b.maxPerApp) return { queued: false, why: 'app_full', place };
    let lane = this.lanes.get(app);
    if (!lane) {
      this.lanes.set(app, (lane = { items: [], weight, deficit: 0 }));
      this.ring.push(app);
    }
    lane.weight = Math.max(weight, 0.001);
    lane.items.push({ item, at: now });
    this.size++;
    return { queued: true, place: { position: place.position, length: this.size } };
  }

  /** The next item by deficit round robin, with the milliseconds it waited; undefined when empty. */
  shift(now: number): { item: T; app: string; waitedMs: number } | undefined {
    while (this.ring.length > 0) {
      if (this.cursor >= this.ring.length) this.cursor = 0;
      const app = this.ring[this.cursor]!;
      const lane = this.lanes.get(app)!;
      if (lane.deficit < 1) lane.deficit += lane.weight; // its turn starts
      if (lane.deficit < 1) {
        this.cursor++; // a light lane saves up for a later round
        continue;
      }
      const head = lane.items.shift()!;
      lane.deficit -= 1;
      this.size--;
      if (lane.items.length === 0) this.drop(app);
      else if (lane.deficit < 1) this.cursor++;
      return { item: head.item, app, waitedMs: Math.max(0, now - head.at) };
    }
    return undefined;
  }

  /** Takes `item` out (it gave up waiting); false when it is not queued. */
  remove(item: T): boolean {
    for (const [app, lane] of this.lanes) {
      const i = lane.items.findIndex((e) => e.item === item);
      if (i < 0) continue;
      lane.items.splice(i, 1);
      this.size--;
      if (lane.items.length === 0) this.drop(app);
      return true;
    }
    return false;
  }

  /**
   * Estimated place of `app`'s next call with `ahead` of its own already queued: those, plus what every other
   * lane gets served in the rounds it takes to reach it (by weight), plus itself.
   */
  private estimate(app: string, weight: number, ahead: number): number {
    const rounds = (ahead + 1) / Math.max(weight, 0.001);
    let before = ahead;
    for (const [id, lane] of this.lanes) {
      if (id === app) continue;
      before += Math.min(lane.items.length, Math.ceil(rounds * lane.weight));
    }
    return before + 1;
  }

  private drop(app: string): void {
    const i = this.ring.indexOf(app);
    this.lanes.delete(app);
    if (i < 0) return;
    this.ring.splice(i, 1);
    if (i < this.cursor) this.cursor--;
  }
}
