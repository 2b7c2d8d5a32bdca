import { setTimeout as sleep } from 'node:timers/promises';
import type { Clock } from '../../common/clock.js';
import type { PollStateStore } from './poll-state.store.js';

/** An update as getUpdates gives it (only `update_id` is read here). */
export type PolledUpdate = { update_id: number } & Record<string, unknown>;

export interface PollerDeps {
  bot: string;
  /** This instance's random poller id (never a token). */
  poller: string;
  store: PollStateStore;
  clock: Clock;
  leaseMs: number;
  /** One long poll: updates from `offset` on (0: from the first unconfirmed one), waiting up to `timeoutS`. */
  fetch(offset: number, timeoutS: number, signal: AbortSignal): Promise<PolledUpdate[]>;
  timeoutS: number;
  /** Hands an update to the pipeline: true when it went through (any 2xx), false to retry it later. */
  dispatch(update: PolledUpdate): Promise<boolean>;
  /** Resolves once the update route can be called (the HTTP server listens). */
  ready(signal: AbortSignal): Promise<void>;
  /** Milliseconds to wait after a failure (the Bot API's retry_after when it gave one). */
  backoffMs(err: unknown, failures: number): number;
  onError(what: string, err: unknown): void;
  /** Told what happened, for the metrics: `n` updates fetched, this instance holding the lease or not. */
  onFetched?(n: number): void;
  onActive?(active: boolean): void;
}

/**
 * One polling bot on one instance: takes the bot's lease (or waits for it),
 * then long-polls `getUpdates`, hands each update in order to the pipeline,
 * and advances the offset only after the updates before it went through
 * (fenced by the lease). An update whose handling failed stops the batch and
 * is fetched again after a pause; one handled twice (an instance died between
 * handling and committing) is a duplicate of its dedup claim. The lease is
 * renewed every third of its life; a poller that cannot renew it in time stops
 * polling before another may have taken over.
 */
export class UpdatePoller {
  private readonly stop = new AbortController();
  private running?: Promise<void>;
  /** True while this instance holds the bot's lease. */
  active = false;

  constructor(private readonly d: PollerDeps) {}

  start(): void {
    this.running ??= this.run().catch((err: unknown) => this.d.onError('poller stopped', err));
  }

  /** Stops polling (an open long poll is aborted), waits for an update in flight, gives the lease back. */
  async close(): Promise<void> {
    this.stop.abort();
    await this.running;
    await this.d.store.release(this.d.bot, this.d.poller).catch(() => undefined);
  }

  private async run(): Promise<void> {
    const { signal } = this.stop;
    await this.d.ready(signal);
    const third = Math.max(100, Math.floor(this.d.leaseMs / 3));
    while (!signal.aborted) {
      let lease: Awaited<ReturnType<PollStateStore['lease']>>;
      try {
        lease = await this.d.store.lease(this.d.bot, this.d.poller, this.d.leaseMs);
      } catch (err) {
        this.d.onError('lease', err);
        await pause(third, signal);
        continue;
      }
      if (!lease.held) {
        // Try again soon after the holder's lease would end (a dead holder's lease ends by itself).
        await pause(Math.min(third, lease.retryMs + 10), signal);
        continue;
      }
      await this.hold(lease.offset, third);
    }
  }

  /** Polls while the lease is held: renewed every `third` ms, lost when a renewal says so or comes too late. */
  private async hold(from: number, third: number): Promise<void> {
    const { signal } = this.stop;
    const lost = new AbortController();
    const both = AbortSignal.any([signal, lost.signal]);
    let until = this.d.clock.now() + this.d.leaseMs;
    // Stop a margin before the lease would end: another instance may take it from then on.
    const margin = Math.max(50, Math.floor(this.d.leaseMs / 6));
    const renew = setInterval(() => {
      if (this.d.clock.now() > until - margin) lost.abort();
      this.d.store.lease(this.d.bot, this.d.poller, this.d.leaseMs).then(
        (l) => (l.held ? (until = this.d.clock.now() + this.d.leaseMs) : lost.abort()),
        (err: unknown) => this.d.onError('lease renewal', err),
      );
    }, third);
    this.active = true;
    this.d.onActive?.(true);
    let offset = from;
    let failures = 0;
    try {
      while (!both.aborted) {
        let updates: PolledUpdate[];
        try {
          updates = await this.d.fetch(offset, this.d.timeoutS, both);
        } catch (err) {
          if (both.aborted) break;
          failures += 1;
          this.d.onError('getUpdates', err);
          await pause(this.d.backoffMs(err, failures), both);
          continue;
        }
        this.d.onFetched?.(updates.length);
        let next = offset;
        let failed = false;
        for (const u of [...updates].sort((a, b) => a.update_id - b.update_id)) {
          if (u.update_id < next || both.aborted) continue;
          if (!(await this.d.dispatch(u).catch(() => false))) {
            failed = true;
            break;
          }
          next = u.update_id + 1;
        }
        if (next > offset) {
          const kept = await this.d.store
            .commit(this.d.bot, this.d.poller, next, this.d.leaseMs)
            .catch((err: unknown) => (this.d.onError('commit', err), next));
          // Lost: the new holder goes on from the offset in Redis. A failed commit (Redis down) keeps
          // going from `next`: Telegram confirms the batch on the next call, the claims cover the rest.
          if (kept === undefined) break;
          offset = Math.max(offset, kept);
          until = this.d.clock.now() + this.d.leaseMs;
        }
        failures = failed ? failures + 1 : 0;
        if (failed) await pause(this.d.backoffMs(undefined, failures), both);
        // Short polling (timeout 0) answers at once: a second between empty answers, not a busy loop.
        else if (updates.length === 0 && this.d.timeoutS === 0) await pause(1_000, both);
      }
    } finally {
      clearInterval(renew);
      this.active = false;
      this.d.onActive?.(false);
    }
  }
}

/** Waits `ms`, or less when `signal` aborts (never throws). */
async function pause(ms: number, signal: AbortSignal): Promise<void> {
  await sleep(ms, undefined, { signal }).catch(() => undefined);
}
