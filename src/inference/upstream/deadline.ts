/**
 * A timeout that aborts a signal, and that can be pushed back: an upstream
 * call gets `ms` to answer, and a stream `ms` between two chunks.
 */
export class Deadline {
  private readonly ctl = new AbortController();
  private readonly timer: NodeJS.Timeout;
  /** True once the time ran out (tells our timeout from other aborts). */
  fired = false;

  constructor(readonly ms: number) {
    this.timer = setTimeout(() => {
      this.fired = true;
      this.ctl.abort(new DOMException(`no answer within ${ms} ms`, 'TimeoutError'));
    }, ms);
  }

  get signal(): AbortSignal {
    return this.ctl.signal;
  }

  /** Gives another `ms` from now. */
  touch(): void {
    if (!this.fired) this.timer.refresh();
  }

  clear(): void {
    clearTimeout(this.timer);
  }
}
