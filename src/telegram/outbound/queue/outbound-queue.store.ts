import type { DeadReason, Job, NewJob } from '../outbound.types.js';

/** What became of one submitted job: `replaced` = queued, and it collapsed a waiting job of its lane. */
export type EnqueueOutcome = 'queued' | 'replaced' | 'duplicate';

/** A worker's hold on a chat lane: the lane's head job, which only this holder may settle. */
export interface Lease {
  lane: string;
  token: string;
  job: Job;
  /** The lane was held by a worker that died (its lease expired while the job was being sent). */
  reclaimed: boolean;
  /** Epoch ms this lease ends (the claim's now + lease ms). */
  expires: number;
  /** The job's leases that ended without a settle since its last one (their workers died), oldest first. */
  lost: LostLease[];
  /** Epoch ms the lane was due from when it was claimed: its place in line among the due lanes. */
  place?: number;
  /**
   * The job is a leftover of a move of this lane cut short (Redis: the worker died between its steps): it
   * is in the lane of this chat id already. The holder moves the lane again (migrate), never sends it.
   */
  movedTo?: string;
}

/** A lease that ended without a settle: its token (the send id at the gate) and when it ended (epoch ms). */
export interface LostLease {
  token: string;
  ended: number;
}

export interface Claimed {
  leases: Lease[];
  nextAt?: number;
}

/**
 * What a cancel did: `cancelled`; `sending` (the head of a held lane: it may be in a Bot API call);
 * `finished` (sent, dead, collapsed or cancelled already); `unknown`.
 */
export type CancelOutcome = 'cancelled' | 'sending' | 'finished' | 'unknown';

/** How a held job ends or waits. */
export type Settlement =
  | { kind: 'sent'; bot: string; messageId?: number }
  | { kind: 'dead'; reason: DeadReason; bot?: string; error?: string; attempts?: number }
  /** Stays at the head of its lane until `until` (epoch ms): cooldown, backoff, a bucket's wait. */
  | {
      kind: 'wait';
      until: number;
      state: 'queued' | 'waiting';
      /**
       * Put back only because every bot was full for now: the lane keeps its place in line (it is claimed
       * again, from when a worker has room, before the lanes that became due after it) instead of going
       * behind the whole backlog — where its chat's later jobs would be the run's tail.
       */
      keepPlace?: boolean;
      attempts?: number;
      bot?: string;
      error?: string;
    };

/** Jobs waiting in the lanes of one queue: a scope's, or a pinned bot's (`bot=<id>`). No chat is named. */
export interface QueueBacklog {
  queue: string;
  /** Jobs queued, waiting or being sent. */
  jobs: number;
  /** Chat lanes with at least one job. */
  lanes: number;
  /** Epoch ms the oldest head job became due (accepted or not_before). */
  oldestDueAt: number;
}

/**
 * The outbound queue: one FIFO lane per chat (per scope), each lane held by
 * at most one worker at a time (a lease that expires, so a crashed worker's
 * lane is reclaimed), jobs by id for idempotency and status, collapse keys,
 * and a dead-letter set. A Redis store (Lua, one hash tag per partition) and
 * a memory store (the embedded default, not durable) pass one test table.
 * Times are epoch milliseconds of the app clock.
 */
export interface OutboundQueueStore {
  /** Queues the jobs in order; a job whose id is known is a duplicate and changes nothing. */
  enqueue(jobs: NewJob[], now: number): Promise<EnqueueOutcome[]>;
  /**
   * Holds up to `max` due lanes (high priority first) for `leaseMs`; `nextAt` is when the next lane not
   * claimed now falls due (undefined: none waiting), so an idle worker knows how long it may sleep.
   * `idle`: the caller holds no lane: one pass, high first within each partition only (a cheap wake-up).
   */
  claim(now: number, leaseMs: number, max: number, idle?: boolean): Promise<Claimed>;
  /**
   * Another instance queued a lane in partition `partition` (its wake channel; undefined: anywhere): what this
   * store knows of where no lane is due there is forgotten, so the next claim looks there again (a store that
   * keeps no such knowledge has nothing to do).
   */
  forget?(partition?: number): void;
  /** Settles a held head job; false when the lease was lost (expired and reclaimed). */
  settle(lease: Lease, s: Settlement, now: number, nextAt?: number): Promise<boolean>;
  get(id: string): Promise<Job | undefined>;
  /** Dead-lettered jobs, newest first. */
  dead(limit: number): Promise<Job[]>;
  /** Queues dead jobs again at the end of their lanes (attempts reset, new deadline); returns those replayed. */
  replay(ids: string[], now: number, deadlineMs: number): Promise<string[]>;
  /** Takes a queued or waiting job out of its lane (state `cancelled`), unless it may be being sent. */
  cancel(id: string, now: number): Promise<CancelOutcome>;
  /**
   * Makes due now the lanes whose head job waits (`waiting`) for `bot`: its cooldown was lifted early, so
   * the jobs go at once instead of at the old end. Held lanes and lanes waiting for another bot are left.
   * Returns how many lanes were made due.
   */
  wake(bot: string, now: number): Promise<number>;
  /**
   * The held lane's chat moved (`migrate_to_chat_id`, answered to its head job): the head and the lane's
   * other jobs of the head's app go to the lane of chat `to` (same scope or pinned bot), in posting order
   * (merged by `createdAt` with the jobs already there, behind a held head), due now; their chat becomes
   * `to`. Another app's jobs of the old lane stay there. The lease ends. Returns the ids moved, oldest
   * first; [] when the lease was lost (nothing changes).
   */
  migrate(lease: Lease, to: string, now: number): Promise<string[]>;
  /** Jobs waiting or held, by lane count (for metrics: queue depth). */
  depth(): Promise<number>;
  /** Backlog per queue, reading at most `maxLanes` lanes per partition (`truncated` when more exist). */
  backlog(maxLanes: number): Promise<{ queues: QueueBacklog[]; truncated: boolean }>;
}

/** Injection token of the OutboundQueueStore. */
export const OUTBOUND_QUEUE_STORE = Symbol('OUTBOUND_QUEUE_STORE');
