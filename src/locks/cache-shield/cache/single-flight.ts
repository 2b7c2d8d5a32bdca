/**
 * One call per key at a time in this process: concurrent callers of the
 * same key share the first caller's promise (per instance; other instances
 * make their own call, the result cache then serves the rest).
 */
export class SingleFlight<T> {
  private readonly inflight = new Map<string, Promise<T>>();

  /** Calls in flight. */
  get size(): number {
    return this.inflight.size;
  }

  /** Starts `work` for `key`, or joins the call already in flight (`leader` false). */
  run(key: string, work: () => Promise<T>): { leader: boolean; promise: Promise<T> } {
    const running = this.inflight.get(key);
    if (running) return { leader: false, promise: running };
    const promise = (async () => {
      try {
        return await work();
      } finally {
        this.inflight.delete(key);
      }
    })();
    this.inflight.set(key, promise);
    return { leader: true, promise };
  }
}
