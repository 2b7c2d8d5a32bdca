import type { Clock } from '../../../common/clock.js';

/**
 * How an OutboundWorker sleeps between claims: until a time, cut short by a wake (`cut`), or moved
 * earlier by a lane due sooner (`bringForward`). A wake that comes while awake (claiming) is kept: the
 * next sleep is cut by it, not lost.
 */
export class WorkerSleep {
  private wakeUp?: () => void;
  /** When the current sleep ends (epoch ms; undefined: awake). */
  private sleepingUntil?: number;
  private sleepTimer?: NodeJS.Timeout;
  /** A wake or a notification that came while awake (claiming): the next sleep is cut by it, not lost. */
  private woken = false;
  private dueHint = Infinity;

  constructor(private readonly clock: Clock) {}

  /** A new pass begins: what wakes the worker from here on is seen by its claim or cuts its next sleep. */
  awake(): void {
    this.woken = false;
  }

  /** Ends the current sleep now, or the next one before it starts. */
  cut(): void {
    this.woken = true;
    this.wakeUp?.();
  }

  /** The worker should claim at `at`: the current sleep ends then if it would end later (else the next one). */
  bringForward(at: number): void {
    if (this.sleepingUntil === undefined) this.dueHint = Math.min(this.dueHint, at);
    if (this.sleepingUntil === undefined || at >= this.sleepingUntil) return;
    const wake = this.wakeUp;
    clearTimeout(this.sleepTimer);
    this.sleepingUntil = at;
    this.sleepTimer = setTimeout(() => wake?.(), Math.max(1, at - this.clock.now()));
  }

  sleep(ms: number): Promise<void> {
    if (this.woken) return Promise.resolve();
    ms = Math.min(ms, this.dueHint - this.clock.now());
    this.dueHint = Infinity;
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(this.sleepTimer);
        this.sleepingUntil = undefined;
        resolve();
      };
      this.sleepingUntil = this.clock.now() + Math.max(1, ms);
      this.sleepTimer = setTimeout(done, Math.max(1, ms));
      this.wakeUp = done;
    });
  }
}
