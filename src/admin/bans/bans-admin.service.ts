import { randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { CLOCK, type Clock } from '../../common/clock.js';
import { ProblemException } from '../../common/problem.exception.js';
import { MAX_BANS, type BanDimension } from '../../locks/rate-limit/bans/ban.types.js';
import { AdminMetrics } from '../admin-metrics.js';
import { AuditRecorder } from '../audit/audit-recorder.service.js';
import { InstalledParts } from '../installed-parts.service.js';
import { BAN_STORE, type BanStore, type StoredBan } from './ban-store.js';
import { parseBan } from './ban-input.js';
import { BansSync } from './bans-sync.service.js';

/** A ban as the admin API shows it: the subject as its key part (no id in clear), times in ISO. */
export interface BanView {
  id: string;
  dimension: BanDimension;
  subject: string;
  /** The app (or bot) the ban is scoped to; null: every app. */
  app: string | null;
  until: string;
  reason: string | null;
  createdAt: string;
  actor: string;
}

const view = (b: StoredBan): BanView => ({
  id: b.id,
  dimension: b.dimension,
  subject: b.subject,
  app: b.app,
  until: new Date(b.untilMs).toISOString(),
  reason: b.reason ?? null,
  createdAt: b.createdAt,
  actor: b.actor,
});

const described = (b: StoredBan): string =>
  `${b.dimension} ${b.subject}${b.app === null ? ' (every app)' : ` of ${b.app}`}`;

/** Sets, lists and lifts bans (docs/admin-api.md#bans): stored, applied here at once, audited. */
@Injectable()
export class BansAdmin {
  constructor(
    @Inject(BAN_STORE) private readonly store: BanStore,
    private readonly parts: InstalledParts,
    private readonly sync: BansSync,
    private readonly audit: AuditRecorder,
    private readonly metrics: AdminMetrics,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async list(filter: { app?: string; dimension?: string }): Promise<BanView[]> {
    this.parts.requireBans();
    const now = this.clock.now();
    return (await this.store.all())
      .filter((b) => b.untilMs > now)
      .filter((b) => filter.app === undefined || b.app === filter.app)
      .filter((b) => filter.dimension === undefined || b.dimension === filter.dimension)
      .sort((a, b) => a.untilMs - b.untilMs)
      .map(view);
  }

  async add(actor: string, body: unknown): Promise<BanView> {
    const port = this.parts.requireBans();
    const now = this.clock.now();
    const input = parseBan(body, now);
    const ban: StoredBan = {
      id: randomBytes(9).toString('base64url'),
      dimension: input.dimension,
      subject: port.subjectOf(input.dimension, input.id),
      app: input.app,
      untilMs: input.untilMs,
      ...(input.reason === undefined ? {} : { reason: input.reason }),
      createdAt: new Date(now).toISOString(),
      actor,
    };
    const r = await this.store.add(ban, MAX_BANS, now);
    if (!r.ok) {
      this.metrics.changes.inc({ action: 'ban.add', result: 'rejected' });
      throw new ProblemException(409, 'too_many_bans', 'Too many bans', {
        detail: `${r.held} bans are in force, the most held (${MAX_BANS}); lift one or wait for one to lapse`,
      });
    }
    await this.sync.pull();
    this.metrics.changes.inc({ action: 'ban.add', result: 'applied' });
    const v = view(ban);
    await this.audit.record({
      at: v.createdAt,
      actor,
      action: 'ban.add',
      target: `ban:${ban.id}`,
      summary: `${described(ban)} banned until ${v.until}${ban.reason ? ` (${ban.reason})` : ''}`,
      changes: [{ path: `bans.${ban.id}`, to: { ...v, actor: undefined } }],
    });
    return v;
  }

  async lift(actor: string, id: string): Promise<BanView> {
    this.parts.requireBans();
    const { removed } = await this.store.remove(id);
    if (!removed)
      throw new ProblemException(404, 'ban_not_found', 'No such ban', {
        detail: 'There is no ban with this id (it may have been lifted or lapsed)',
      });
    await this.sync.pull();
    this.metrics.changes.inc({ action: 'ban.lift', result: 'applied' });
    const v = view(removed);
    await this.audit.record({
      at: new Date(this.clock.now()).toISOString(),
      actor,
      action: 'ban.lift',
      target: `ban:${id}`,
      summary: `ban of ${described(removed)} lifted (was until ${v.until})`,
      changes: [{ path: `bans.${id}`, from: { ...v, actor: undefined } }],
    });
    return v;
  }
}
