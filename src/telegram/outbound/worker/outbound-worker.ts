import { Logger } from '@nestjs/common';
import type { Clock } from '../../../common/clock.js';
import type { OutboundSettings } from '../outbound.settings.js';
import type { OutboundQueueStore } from '../queue/outbound-queue.store.js';
import type { SendAttempt } from './send-attempt.js';
import { WorkerSleep } from './worker-sleep.js';

/**
 * A worker: holds up to `concurrency` chat lanes at once and runs one send
 * attempt on each. It claims as many lanes as it has free slots; when none is
 * due it sleeps until the next one is (at most `safetyPollMs`: an idle worker
 * asks Redis almost nothing), until this process queues a job or a send ends
 * (`wake`), or until any instance queues one (`notify`, from the queue's wake
 * channel: at most one claim per `pollMs`, so a stream of jobs is not a
 * stream of claims).
 */
export class OutboundWorker {
  private readonly log = new Logger('TelegramOutbound');
  private running = false;
  private active = 0;
  private loop?: Promise<void>;
  private readonly sleeper: WorkerSleep;
  private lastClaimAt = 0;
  /** A claim came back short (no more lanes due): no claim before this, unless a job is queued here. */
  private dryUntil = 0;
  /** Last time a claim found work (epoch ms): the depth gauge is refreshed often only while there is some. */
  lastWorkAt = 0;
  private readonly inflight = new Set<Promise<void>>();

  constructor(
    private readonly queue: OutboundQueueStore,
    private readonly attempt: SendAttempt,
    private readonly settings: OutboundSettings,
    private readonly clock: Clock,
  ) {
    this.sleeper = new WorkerSleep(clock);
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  /** Stops claiming and waits for the sends in flight to settle. */
  async stop(): Promise<void> {
    this.running = false;
    this.wake();
    await this.loop;
    await Promise.allSettled([...this.inflight]);
  }

  wake(): void {
    this.dryUntil = 0;
    this.freed();
  }

  /** A send ended: a slot is free (a short claim's wait holds: the queue had no more lanes due). */
  private freed(): void {
    this.sleeper.cut();
  }

  /** A lane due at `dueAt` was queued in `partition` (owned here; undefined: anywhere): claim then, ≥ `pollMs` after the last. */
  notify(dueAt: number, partition?: number): void {
    this.queue.forget?.(partition);
    this.sleeper.bringForward(Math.max(dueAt || 0, this.lastClaimAt + this.settings.pollMs));
  }

  private async run(): Promise<void> {
    while (this.running) {
      // What wakes it from here on is seen by this pass's claim or cuts its next sleep.
      this.sleeper.awake();
      let sleepMs = this.settings.pollMs;
      const free = this.settings.concurrency - this.active;
      // Claims in batches (a claim visits every partition): a single freed slot waits for a few more.
      const batch = Math.max(1, Math.floor(this.settings.concurrency / 8));
      // Every bot cooling down, full, or with a full line: a lane claimed now would only go back.
      let room = this.attempt.room();
      // Held back by cooldowns: one lifted early whose message this worker missed ends here (slowly).
      if (room.at > this.clock.now()) {
        await this.attempt.recheck();
        room = this.attempt.room();
      }
      const wait = room.at - this.clock.now();
      if (wait > 0) {
        await this.sleep(Math.min(wait, this.settings.pollMs * 16));
        continue;
      }
      const dry = this.dryUntil - this.clock.now();
      if (dry > 0) {
        await this.sleep(dry);
        continue;
      }
      // Room for less than a batch while sends are in hand: it grows by a lane per bot interval; wait for more.
      if (room.lanes < Math.min(batch, free) && this.active >= batch) {
        await this.sleep(this.settings.pollMs);
        continue;
      }
      if (free >= batch || (free > 0 && this.active < this.settings.concurrency / 2)) {
        try {
          const now = this.clock.now();
          this.lastClaimAt = now;
          const want = Math.max(1, Math.min(free, room.lanes));
          const { leases, nextAt } = await this.queue.claim(
            now,
            this.settings.leaseMs,
            want,
            this.active === 0,
          );
          for (const lease of leases) this.track(this.attempt.run(lease));
          // Short: every due lane is taken. The next claim waits for the next due one, or a poll (lanes
          // this worker puts back come due at times the claim did not see), not for each send's end.
          this.dryUntil =
            leases.length < want ? Math.min(nextAt ?? Infinity, now + this.settings.pollMs) : 0;
          if (leases.length > 0) {
            this.lastWorkAt = now;
            sleepMs = 0;
          } else {
            // Nothing due: sleep until the next lane is, a notification, or the safety poll.
            sleepMs = this.settings.safetyPollMs;
            if (nextAt !== undefined) sleepMs = Math.min(sleepMs, Math.max(1, nextAt - now));
          }
        } catch (err) {
          this.log.warn(`claim failed: ${(err as Error).message}`);
        }
      }
      if (this.settings.concurrency - this.active < batch) await this.sleep(this.settings.pollMs);
      else if (sleepMs > 0) await this.sleep(sleepMs);
    }
  }

  private track(p: Promise<void>): void {
    this.active++;
    const done = p
      .catch((err: unknown) => this.log.warn(`send attempt failed: ${(err as Error).message}`))
      .finally(() => {
        this.active--;
        this.inflight.delete(done);
        this.freed();
      });
    this.inflight.add(done);
  }

  private sleep(ms: number): Promise<void> {
    return this.sleeper.sleep(ms);
  }
}
