/**
 * A timeout that aborts a signal, and that can be pushed back or paused: an
 * upstream call gets `ms` to answer, and a stream `ms` between two chunks
 * (not counting the time a slow client takes to read them).
 */
export class Deadline {
  private readonly ctl = new AbortController();
  private timer?: NodeJS.Timeout;
  /** True once the time ran out (tells our timeout from other aborts). */
  fired = false;

  constructor(readonly ms: number) {
    this.touch();
  }

  get signal(): AbortSignal {
    return this.ctl.signal;
  }

  /** Gives another `ms` from now (and resumes a paused deadline). */
  touch(): void {
    if (this.fired) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.fired = true;
      this.ctl.abort(new DOMException(`no answer within ${this.ms} ms`, 'TimeoutError'));
    }, this.ms);
  }

  /** Stops the clock until the next touch(). */
  pause(): void {
    clearTimeout(this.timer);
  }

  clear(): void {
    clearTimeout(this.timer);
  }
}
