import { randomUUID } from 'node:crypto';
import type { RedisService } from '../../../redis/redis.service.js';
import { type Job, type NewJob, laneOf } from '../outbound.types.js';
import {
  CancelOutcome,
  Claimed,
  EnqueueOutcome,
  Lease,
  OutboundQueueStore,
  QueueBacklog,
  Settlement,
  addBacklog,
  parseLost,
  partitionOf,
} from './outbound-queue.store.js';
import { decodeJob, jobArgs } from './redis-job-codec.js';
import { IdCipher } from '../id-cipher.js';
import { moveLane, movedTo } from './redis-lane-move.js';

/** The calls a store needs (RedisService, or the sender's own connection OutboundRedis). */
type Runner = Pick<RedisService, 'script' | 'run'>;

/**
 * The queue in Redis: `partitions` partitions, each under its own hash tag
 * `{<env>:<service>:q<k>}` (spread over a Cluster's slots); a lane lives in
 * the partition of its key, and every change of a lane is one Lua call there.
 * A job id points to its partition (`…:id:<job id>` in the id's own
 * partition), so the status of a job is found from its id alone.
 */
/** The channel the enqueue script announces newly due lanes on (idle workers of every instance wake on it). */
export const wakeChannel = (base: string): string => `tgo:{${base}}:wake`;
/** The channel a bot's cooldown lifted early is announced on (its id): every worker forgets the cooldown. */
export const liftChannel = (base: string): string => `tgo:{${base}}:lift`;

/** How long the claim's first pass passes over a partition found without any high-priority lane. */
const NO_HIGH_RECHECK_MS = 500;
/**
 * How long a claim passes over a partition whose last visit found its next lane due later (a lane another
 * worker puts back or makes due there meanwhile is seen at most this late; this instance's own are seen at once).
 */
const PARTITION_RECHECK_MS = 100;
/** Lanes a wake (a cooldown lifted early) looks at per partition and priority, at most. */
const WAKE_MAX_LANES = 10_000;

export class RedisOutboundQueueStore implements OutboundQueueStore {
  private turn = 0;
  /** Partition → until when the first pass passes it over: its last visit found no high-priority lane at all. */
  private readonly noHigh = new Map<number, number>();
  /** Partition → its next lane's due time as last seen here (Infinity: none), and when it was seen. */
  private readonly nextDue = new Map<number, { at: number; seen: number }>();

  constructor(
    private readonly redis: Runner,
    private readonly base: string,
    private readonly partitions: number,
    private readonly retentionMs: number,
    /** Chat ids in Redis: lanes by pseudonym, the job's chat sealed (docs/security.md#ids-in-redis). */
    private readonly ids: IdCipher = IdCipher.from(undefined, undefined),
  ) {}

  private prefix(k: number): string {
    return `tgo:{${this.base}:q${k}}`;
  }

  private idKey(id: string): string {
    return `${this.prefix(partitionOf(id, this.partitions))}:id:${id}`;
  }

  async enqueue(jobs: NewJob[], now: number): Promise<EnqueueOutcome[]> {
    const out: EnqueueOutcome[] = [];
    // One job at a time, in order: a batch's jobs may share a lane, and ids must be claimed before queuing.
    for (const j of jobs) {
      // The lane names the chat by its pseudonym: lane keys, the lanes hash and leases carry no raw id.
      const lane = laneOf({ ...j, chatId: this.ids.pseudonym(j.chatId) });
      let k = partitionOf(lane, this.partitions);
      const ttl = Math.max(1, j.deadline - now) + this.retentionMs;
      const set = await this.redis.run('telegram.id', (c) =>
        c.set(this.idKey(j.id), k, 'PX', ttl, 'NX'),
      );
      if (set === null) {
        // Known id: its partition decides (a crash between the two steps left the job to be queued there).
        const at = await this.redis.run('telegram.id', (c) => c.get(this.idKey(j.id)));
        k = at === null ? k : Number(at);
      }
      const p = this.prefix(k);
      const r = await this.redis.script<number[]>(
        'telegram_queue_enqueue',
        [`${p}:lanes`],
        [p, now, this.retentionMs, wakeChannel(this.base), ...jobArgs(j, lane, this.ids)],
      );
      out.push(r[0] === 2 ? 'replaced' : r[0] === 1 ? 'queued' : 'duplicate');
      this.nextDue.delete(k);
      if (j.priority === 'high') this.noHigh.delete(k);
    }
    return out;
  }

  /**
   * Two passes over the partitions: high-priority lanes of every partition first, then every
   * priority, so a high-priority job does not wait behind a normal one of another partition. The
   * first pass passes over, for NO_HIGH_RECHECK_MS, a partition whose last visit found no
   * high-priority lane at all (due or not): a claim is then one script call per partition, not two.
   * A high job queued through this instance clears that at once; one queued through another instance
   * is still claimed by the second pass (high first in its partition), at worst that long after
   * normal lanes of other partitions.
   */
  async claim(now: number, leaseMs: number, max: number, idle = false): Promise<Claimed> {
    const leases: Lease[] = [];
    let nextAt: number | undefined;
    const start = this.turn++ % this.partitions;
    // Oldest due first, as last seen here (unseen first, ties in turn): in turn alone, a partition that drew
    // more lanes was drained last, and its two-job chats' second jobs were a backlog's tail.
    const seen = (k: number) => Math.min(this.nextDue.get(k)?.at ?? 0, Number.MAX_VALUE);
    const order = Array.from({ length: this.partitions }, (_, i) => (start + i) % this.partitions);
    order.sort((a, b) => seen(a) - seen(b));
    // An idle worker (a safety poll, a wake-up) skips the high-only pass: one call per partition.
    for (const levels of idle ? ['all'] : ['h', 'all'])
      for (let i = 0; i < this.partitions; i++) {
        const want = max - leases.length;
        if (want <= 0) break;
        const k = order[i]!;
        if (levels === 'h' && (this.noHigh.get(k) ?? 0) > now) continue;
        // Nothing due there when last seen (and not since changed by this instance): one call saved per claim.
        const known = this.nextDue.get(k);
        if (known && known.at > now && now - known.seen < PARTITION_RECHECK_MS) {
          if (known.at < Infinity) nextAt = Math.min(nextAt ?? Infinity, known.at);
          continue;
        }
        const p = this.prefix(k);
        const r = await this.redis.script<
          [number, ...[string, string, number, string[], string][]]
        >('telegram_queue_claim', [`${p}:lanes`], [p, now, leaseMs, want, randomUUID(), levels]);
        if (r[0] >= 0) nextAt = Math.min(nextAt ?? Infinity, r[0]);
        if (levels === 'all') this.nextDue.set(k, { at: r[0] >= 0 ? r[0] : Infinity, seen: now });
        if (levels === 'h') {
          if (r.length === 1 && r[0] < 0) this.noHigh.set(k, now + NO_HIGH_RECHECK_MS);
          else this.noHigh.delete(k);
        }
        for (const [lane, token, reclaimed, hash, place] of r.slice(1) as [
          string,
          string,
          number,
          string[],
          string,
        ][])
          leases.push({
            lane,
            token,
            reclaimed: reclaimed === 1,
            expires: now + leaseMs,
            lost: parseLost(hash.find((_, i) => i % 2 === 1 && hash[i - 1] === 'lost')),
            job: decodeJob(hash, this.ids)!,
            place: Number(place),
            movedTo: movedTo(hash, lane, this.ids),
          });
      }
    return { leases, nextAt };
  }

  async settle(lease: Lease, s: Settlement, now: number, nextAt = now): Promise<boolean> {
    const p = this.prefix(partitionOf(lease.lane, this.partitions));
    // A settle ends the job's lost leases (its reclaim decided on them).
    const f: (string | number)[] = lease.lost.length > 0 ? ['lost', ''] : [];
    if (s.kind === 'wait') f.push('state', s.state, 'wait', s.until);
    else f.push('state', s.kind, 'finished', now, 'wait', '');
    if (s.kind === 'sent' && s.messageId !== undefined) f.push('mid', s.messageId);
    if (s.kind === 'dead') f.push('reason', s.reason);
    if (s.kind !== 'sent') f.push('err', s.error ?? '');
    if (s.bot !== undefined) f.push('bot', s.bot);
    if (s.kind !== 'sent' && s.attempts !== undefined) f.push('attempts', s.attempts);
    const at =
      s.kind !== 'wait'
        ? nextAt
        : s.keepPlace
          ? Math.min(s.until, lease.place ?? s.until)
          : s.until;
    this.due(partitionOf(lease.lane, this.partitions), at);
    const r = await this.redis.script<number>(
      'telegram_queue_settle',
      [`${p}:lanes`],
      [
        p,
        lease.lane,
        lease.token,
        lease.job.id,
        now,
        s.kind,
        this.retentionMs,
        Math.ceil(at),
        ...f,
      ],
    );
    return r === 1;
  }

  /** A lane of partition `k` is due at `at` (this instance settled, replayed or woke it). */
  private due(k: number, at: number): void {
    const known = this.nextDue.get(k);
    if (known && at < known.at) known.at = at;
  }

  /** Lanes may have become due anywhere (another instance queued one): every partition is visited again. */
  forget(): void {
    this.nextDue.clear();
  }

  async get(id: string): Promise<Job | undefined> {
    const k = await this.redis.run('telegram.id', (c) => c.get(this.idKey(id)));
    if (k === null) return undefined;
    const h = await this.redis.run('telegram.job', (c) =>
      c.hgetall(`${this.prefix(Number(k))}:j:${id}`),
    );
    return decodeJob(h, this.ids);
  }

  async dead(limit: number): Promise<Job[]> {
    const all: { at: number; job: Job }[] = [];
    for (let k = 0; k < this.partitions; k++) {
      const p = this.prefix(k);
      const ids = await this.redis.run('telegram.dead', (c) =>
        c.zrevrange(`${p}:dead`, 0, limit - 1, 'WITHSCORES'),
      );
      for (let i = 0; i + 1 < ids.length; i += 2) {
        const h = await this.redis.run('telegram.job', (c) => c.hgetall(`${p}:j:${ids[i]}`));
        const job = decodeJob(h, this.ids);
        if (job) all.push({ at: Number(ids[i + 1]), job });
      }
    }
    return all
      .sort((a, b) => b.at - a.at)
      .slice(0, limit)
      .map((x) => x.job);
  }

  async replay(ids: string[], now: number, deadlineMs: number): Promise<string[]> {
    const done: string[] = [];
    for (const id of ids) {
      const k = await this.redis.run('telegram.id', (c) => c.get(this.idKey(id)));
      if (k === null) continue;
      const p = this.prefix(Number(k));
      const r = await this.redis.script<string[]>(
        'telegram_queue_replay',
        [`${p}:lanes`],
        [p, now, now + deadlineMs, id],
      );
      if (r.length === 0) continue;
      this.nextDue.delete(Number(k));
      await this.redis.run('telegram.id', (c) =>
        c.pexpire(this.idKey(id), deadlineMs + this.retentionMs),
      );
      done.push(id);
    }
    return done;
  }

  async cancel(id: string, now: number): Promise<CancelOutcome> {
    const k = await this.redis.run('telegram.id', (c) => c.get(this.idKey(id)));
    if (k === null) return 'unknown';
    const p = this.prefix(Number(k));
    const r = await this.redis.script<number>(
      'telegram_queue_cancel',
      [`${p}:lanes`],
      [p, id, now, this.retentionMs],
    );
    return r === 1 ? 'cancelled' : r === -1 ? 'sending' : r === -2 ? 'finished' : 'unknown';
  }

  async migrate(lease: Lease, to: string, now: number): Promise<string[]> {
    const moved = await moveLane(
      {
        redis: this.redis,
        ids: this.ids,
        partitions: this.partitions,
        prefix: (k) => this.prefix(k),
        idKey: (id) => this.idKey(id),
        wake: wakeChannel(this.base),
      },
      lease,
      to,
      now,
    );
    this.forget();
    return moved;
  }

  async wake(bot: string, now: number): Promise<number> {
    let woken = 0;
    this.forget();
    for (let k = 0; k < this.partitions; k++) {
      const p = this.prefix(k);
      woken += await this.redis.script<number>(
        'telegram_queue_wake',
        [`${p}:lanes`],
        [p, bot, now, WAKE_MAX_LANES],
      );
    }
    return woken;
  }

  async depth(): Promise<number> {
    let n = 0;
    for (let k = 0; k < this.partitions; k++) {
      const v = await this.redis.run('telegram.depth', (c) => c.get(`${this.prefix(k)}:count`));
      n += Number(v ?? 0);
    }
    return n;
  }

  async backlog(maxLanes: number): Promise<{ queues: QueueBacklog[]; truncated: boolean }> {
    const by = new Map<string, QueueBacklog>();
    let truncated = false;
    for (let k = 0; k < this.partitions; k++) {
      const p = this.prefix(k);
      const [cut, ...rows] = await this.redis.script<
        [number, ...[string, number, number, number][]]
      >('telegram_queue_backlog', [`${p}:lanes`], [p, maxLanes]);
      truncated ||= cut === 1;
      for (const [queue, jobs, lanes, due] of rows)
        addBacklog(by, { queue, jobs, lanes, oldestDueAt: due });
    }
    return { queues: [...by.values()], truncated };
  }
}
