import { randomUUID } from 'node:crypto';
import { MemoryStoreFullError } from '../../../common/bounded-map.js';
import { memoryStores } from '../../../common/memory-stores.js';
import { type Job, type NewJob, PRIORITIES, type Priority, laneOf } from '../outbound.types.js';
import type {
  LostLease,
  CancelOutcome,
  Claimed,
  EnqueueOutcome,
  Lease,
  OutboundQueueStore,
  QueueBacklog,
  Settlement,
} from './outbound-queue.store.js';
import { addBacklog } from './outbound-queue.store.js';
import { appOfJob } from '../job-namespace.js';
import { mergeLane } from './lane-merge.js';

interface Due {
  prio: Priority;
  /** Epoch ms the lane may be claimed (its lease end while held). */
  at: number;
}

/**
 * The embedded queue: the same lanes, leases and collapse rules as the
 * Redis store, in this process's memory. Not durable: a restart loses every
 * queued job (documented); it serves one instance without Redis. Bounded: at
 * most `maxJobs` jobs, queued or kept for their retention (a kept job is what
 * makes a repeated `job_id` a duplicate, so none is dropped early); a batch
 * that does not fit is refused whole (503 `notifications_unavailable`).
 */
export class MemoryOutboundQueueStore implements OutboundQueueStore {
  private readonly jobs = new Map<string, Job>();
  private readonly lanes = new Map<string, string[]>();
  private readonly due = new Map<string, Due>();
  private readonly leases = new Map<string, string>();
  private readonly collapse = new Map<string, string>();
  private readonly deadAt = new Map<string, number>();
  /** Per job: its leases that ended without a settle since its last one (see Lease.lost). */
  private readonly lost = new Map<string, LostLease[]>();
  private purgedAt = 0;

  constructor(
    private readonly retentionMs: number,
    private readonly maxJobs = 100_000,
  ) {
    memoryStores.track('outbound_jobs', this.jobs);
  }

  enqueue(jobs: NewJob[], now: number): Promise<EnqueueOutcome[]> {
    this.purge(now);
    const fresh = new Set(jobs.map((n) => n.id).filter((id) => !this.jobs.has(id))).size;
    if (this.jobs.size + fresh > this.maxJobs) {
      this.purge(now, true);
      if (this.jobs.size + fresh > this.maxJobs) {
        memoryStores.refused('outbound_jobs', 1);
        return Promise.reject(new MemoryStoreFullError('outbound_jobs', this.maxJobs));
      }
    }
    return Promise.resolve(
      jobs.map((n): EnqueueOutcome => {
        if (this.jobs.has(n.id)) return 'duplicate';
        const lane = laneOf(n);
        const job: Job = { ...n, state: 'queued', attempts: 0, createdAt: now };
        this.jobs.set(n.id, job);
        const line = this.lanes.get(lane) ?? [];
        this.lanes.set(lane, line);
        let outcome: EnqueueOutcome = 'queued';
        if (n.collapseKey !== undefined) {
          const ck = `${lane}\n${n.collapseKey}`;
          const old = this.jobs.get(this.collapse.get(ck) ?? '');
          const held = this.leases.has(lane) && line[0] === old?.id;
          if (old && (old.state === 'queued' || old.state === 'waiting') && !held) {
            line.splice(line.indexOf(old.id), 1);
            Object.assign(old, { state: 'collapsed', collapsedBy: n.id, finishedAt: now });
            outcome = 'replaced';
          }
          this.collapse.set(ck, n.id);
        }
        line.push(n.id);
        if (!this.due.has(lane))
          this.due.set(lane, { prio: n.priority, at: Math.max(now, n.notBefore) });
        return outcome;
      }),
    );
  }

  claim(now: number, leaseMs: number, max: number): Promise<Claimed> {
    const out: Lease[] = [];
    let nextAt: number | undefined;
    for (const prio of PRIORITIES) {
      for (const [lane, d] of this.due) {
        if (d.prio !== prio) continue;
        if (d.at > now || out.length >= max) {
          nextAt = Math.min(nextAt ?? Infinity, Math.max(d.at, now));
          continue;
        }
        const job = this.jobs.get(this.lanes.get(lane)?.[0] ?? '');
        if (!job) {
          this.due.delete(lane);
          this.lanes.delete(lane);
          continue;
        }
        if (job.priority !== prio || job.notBefore > now) {
          this.due.set(lane, { prio: job.priority, at: Math.max(d.at, job.notBefore) });
          continue;
        }
        const old = this.leases.get(lane);
        const reclaimed = old !== undefined && job.state === 'sending';
        const lost = this.lost.get(job.id) ?? [];
        if (reclaimed) lost.push({ token: old, ended: d.at });
        if (lost.length > 0) this.lost.set(job.id, lost);
        const token = randomUUID();
        this.leases.set(lane, token);
        const place = d.at;
        d.at = now + leaseMs;
        job.state = 'sending';
        out.push({
          lane,
          token,
          job: { ...job },
          reclaimed,
          expires: d.at,
          lost: [...lost],
          place,
        });
      }
    }
    return Promise.resolve({ leases: out, nextAt });
  }

  settle(lease: Lease, s: Settlement, now: number, nextAt = now): Promise<boolean> {
    const line = this.lanes.get(lease.lane);
    const job = this.jobs.get(lease.job.id);
    if (this.leases.get(lease.lane) !== lease.token || !line || line[0] !== job?.id || !job)
      return Promise.resolve(false);
    this.leases.delete(lease.lane);
    this.lost.delete(job.id);
    if (s.kind === 'wait') {
      Object.assign(job, { state: s.state, waitUntil: s.until, lastError: s.error });
      if (s.attempts !== undefined) job.attempts = s.attempts;
      if (s.bot !== undefined) job.bot = s.bot;
      this.due.get(lease.lane)!.at = s.keepPlace
        ? Math.min(s.until, lease.place ?? s.until)
        : s.until;
      return Promise.resolve(true);
    }
    line.shift();
    job.finishedAt = now;
    job.waitUntil = undefined;
    if (s.kind === 'sent')
      Object.assign(job, { state: 'sent', bot: s.bot, messageId: s.messageId });
    else {
      Object.assign(job, { state: 'dead', reason: s.reason, lastError: s.error });
      if (s.attempts !== undefined) job.attempts = s.attempts;
      if (s.bot !== undefined) job.bot = s.bot;
      this.deadAt.set(job.id, now);
    }
    const ck = `${lease.lane}\n${job.collapseKey}`;
    if (job.collapseKey !== undefined && this.collapse.get(ck) === job.id) this.collapse.delete(ck);
    const next = this.jobs.get(line[0] ?? '');
    if (next)
      this.due.set(lease.lane, { prio: next.priority, at: Math.max(next.notBefore, nextAt) });
    else {
      this.due.delete(lease.lane);
      this.lanes.delete(lease.lane);
    }
    return Promise.resolve(true);
  }

  get(id: string): Promise<Job | undefined> {
    const j = this.jobs.get(id);
    return Promise.resolve(j && { ...j });
  }

  dead(limit: number): Promise<Job[]> {
    const ids = [...this.deadAt].sort((a, b) => b[1] - a[1]).slice(0, limit);
    return Promise.resolve(
      ids.flatMap(([id]) => (this.jobs.has(id) ? [{ ...this.jobs.get(id)! }] : [])),
    );
  }

  replay(ids: string[], now: number, deadlineMs: number): Promise<string[]> {
    const done: string[] = [];
    for (const id of ids) {
      const job = this.jobs.get(id);
      if (!job || job.state !== 'dead') continue;
      this.deadAt.delete(id);
      Object.assign(job, {
        state: 'queued',
        attempts: 0,
        deadline: now + deadlineMs,
        notBefore: now,
      });
      for (const k of ['reason', 'lastError', 'finishedAt', 'waitUntil'] as const) delete job[k];
      const lane = laneOf(job);
      const line = this.lanes.get(lane) ?? [];
      this.lanes.set(lane, line);
      line.push(id);
      if (!this.due.has(lane)) this.due.set(lane, { prio: job.priority, at: now });
      done.push(id);
    }
    return Promise.resolve(done);
  }

  cancel(id: string, now: number): Promise<CancelOutcome> {
    const job = this.jobs.get(id);
    if (!job) return Promise.resolve('unknown');
    if (!['queued', 'waiting', 'sending'].includes(job.state)) return Promise.resolve('finished');
    const lane = laneOf(job);
    const line = this.lanes.get(lane) ?? [];
    const head = line[0] === id;
    if (head && (job.state === 'sending' || this.leases.has(lane)))
      return Promise.resolve('sending');
    line.splice(line.indexOf(id), 1);
    Object.assign(job, { state: 'cancelled', finishedAt: now, waitUntil: undefined });
    const ck = `${lane}\n${job.collapseKey}`;
    if (job.collapseKey !== undefined && this.collapse.get(ck) === id) this.collapse.delete(ck);
    const next = this.jobs.get(line[0] ?? '');
    if (!head) return Promise.resolve('cancelled');
    if (next) this.due.set(lane, { prio: next.priority, at: Math.max(next.notBefore, now) });
    else {
      this.due.delete(lane);
      this.lanes.delete(lane);
    }
    return Promise.resolve('cancelled');
  }

  migrate(lease: Lease, to: string, now: number): Promise<string[]> {
    const line = this.lanes.get(lease.lane);
    const head = this.jobs.get(lease.job.id);
    if (this.leases.get(lease.lane) !== lease.token || !line || line[0] !== head?.id || !head)
      return Promise.resolve([]);
    // Only the head's app's jobs move: another app sending to the same chat learns the move itself.
    const app = appOfJob(head.id);
    const moved = line.filter((id) => appOfJob(id) === app);
    const stay = line.filter((id) => appOfJob(id) !== app);
    this.leases.delete(lease.lane);
    this.lost.delete(head.id);
    const dest = laneOf({ ...head, chatId: to });
    for (const id of moved) {
      const j = this.jobs.get(id)!;
      const ck = `${lease.lane}\n${j.collapseKey}`;
      if (j.collapseKey !== undefined && this.collapse.get(ck) === id) {
        this.collapse.delete(ck);
        const nk = `${dest}\n${j.collapseKey}`;
        if (!this.collapse.has(nk)) this.collapse.set(nk, id);
      }
      Object.assign(j, { chatId: to, state: 'queued', waitUntil: undefined });
    }
    const held = this.leases.has(dest);
    const there = this.lanes.get(dest) ?? [];
    const merged = mergeLane(there, held, moved, (id) => this.jobs.get(id)?.createdAt ?? 0);
    this.lanes.set(dest, merged);
    const first = this.jobs.get(merged[0]!)!;
    if (!held) this.due.set(dest, { prio: first.priority, at: Math.max(now, first.notBefore) });
    const next = this.jobs.get(stay[0] ?? '');
    if (next) {
      this.lanes.set(lease.lane, stay);
      this.due.set(lease.lane, { prio: next.priority, at: Math.max(now, next.notBefore) });
    } else {
      this.lanes.delete(lease.lane);
      this.due.delete(lease.lane);
    }
    return Promise.resolve(moved);
  }

  wake(bot: string, now: number): Promise<number> {
    let woken = 0;
    for (const [lane, d] of this.due) {
      const job = this.jobs.get(this.lanes.get(lane)?.[0] ?? '');
      if (d.at <= now || this.leases.has(lane) || job?.state !== 'waiting' || job.bot !== bot)
        continue;
      d.at = now;
      job.waitUntil = now;
      woken++;
    }
    return Promise.resolve(woken);
  }

  depth(): Promise<number> {
    let n = 0;
    for (const l of this.lanes.values()) n += l.length;
    return Promise.resolve(n);
  }

  backlog(maxLanes: number): Promise<{ queues: QueueBacklog[]; truncated: boolean }> {
    const by = new Map<string, QueueBacklog>();
    let seen = 0;
    for (const [lane, ids] of this.lanes) {
      const head = this.jobs.get(ids[0] ?? '');
      if (!head) continue;
      if (++seen > maxLanes) return Promise.resolve({ queues: [...by.values()], truncated: true });
      const queue = lane.slice(0, lane.lastIndexOf('|'));
      const due = Math.max(head.createdAt, head.notBefore);
      addBacklog(by, { queue, jobs: ids.length, lanes: 1, oldestDueAt: due });
    }
    return Promise.resolve({ queues: [...by.values()], truncated: false });
  }

  /** Forgets finished jobs past their retention (at most once a second unless `force`). */
  private purge(now: number, force = false): void {
    if (!force && now - this.purgedAt < 1_000) return;
    this.purgedAt = now;
    for (const [id, j] of this.jobs)
      if (j.finishedAt !== undefined && j.finishedAt + this.retentionMs < now) {
        this.jobs.delete(id);
        this.deadAt.delete(id);
      }
  }
}
