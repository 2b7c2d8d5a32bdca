import { isIP } from 'node:net';
import { isRecord } from '../../common/is-record.js';
import { ProblemException } from '../../common/problem.exception.js';
import { BAN_DIMENSIONS, type BanDimension } from '../../locks/rate-limit/bans/ban.types.js';
import { ISO_TIME_WITH_ZONE } from '../dto/iso-time.js';

/** Longest ban: a year (a ban is always time-boxed). */
export const MAX_BAN_SECONDS = 365 * 24 * 3600;
const FIELDS = new Set(['dimension', 'subject', 'app', 'global', 'until', 'ttlSeconds', 'reason']);
const APP_ID = /^[A-Za-z0-9_.-]{1,64}$/;
/** Printable text without control characters (it is shown to the banned client). */
const REASON = /^[^\p{Cc}]{1,200}$/u;

/** A ban as asked for, checked: the id still in clear (the lock hashes it). */
export interface BanInput {
  dimension: BanDimension;
  id: string;
  app: string | null;
  untilMs: number;
  reason?: string;
}

export function invalidBan(problems: string[]): ProblemException {
  return new ProblemException(400, 'invalid_ban', 'Ban rejected', {
    problems,
    detail: problems.join('; '),
  });
}

/**
 * Body of `POST /admin/bans`: `{dimension, subject, app? | global: true, until | ttlSeconds, reason?}`.
 * A user, chat or IP ban names its app (a Telegram user's or chat's bot) or says `global: true`;
 * an app ban names neither. Every problem is listed at once (400 `invalid_ban`).
 */
export function parseBan(body: unknown, nowMs: number): BanInput {
  if (!isRecord(body)) throw invalidBan(['body: must be a JSON object']);
  const p: string[] = [];
  for (const k of Object.keys(body)) if (!FIELDS.has(k)) p.push(`${k}: unknown field`);
  const { dimension, subject, app, global, until, ttlSeconds, reason } = body;
  const dim = BAN_DIMENSIONS.find((d) => d === dimension);
  if (!dim) p.push(`dimension: must be one of ${BAN_DIMENSIONS.join(', ')}`);
  if (typeof subject !== 'string' || subject.length === 0 || subject.length > 256)
    p.push('subject: must be a string of 1 to 256 characters');
  else if (dim === 'ip' && isIP(subject) === 0) p.push('subject: must be an IP address');
  else if (dim === 'app' && !APP_ID.test(subject)) p.push('subject: must be an app id');
  if (app !== undefined && (typeof app !== 'string' || !APP_ID.test(app)))
    p.push('app: must be 1-64 characters of [A-Za-z0-9_.-]');
  if (global !== undefined && typeof global !== 'boolean') p.push('global: must be a boolean');
  if (dim === 'app' && (app !== undefined || global === true))
    p.push('app: an app ban names no app (its subject is the app)');
  else if (dim && dim !== 'app' && (app === undefined) === (global !== true))
    p.push('app: give the app (a Telegram bot for its users and chats) or global: true, not both');
  const untilMs = deadline(until, ttlSeconds, nowMs, p);
  if (reason !== undefined && (typeof reason !== 'string' || !REASON.test(reason)))
    p.push('reason: must be 1 to 200 printable characters');
  if (p.length > 0 || !dim || untilMs === undefined) throw invalidBan(p);
  return {
    dimension: dim,
    id: subject as string,
    app: typeof app === 'string' ? app : null,
    untilMs,
    ...(typeof reason === 'string' ? { reason } : {}),
  };
}

/** When the ban lapses: `until` (ISO, future, within a year) or now + `ttlSeconds`; exactly one. */
function deadline(until: unknown, ttl: unknown, nowMs: number, p: string[]): number | undefined {
  if ((until === undefined) === (ttl === undefined)) {
    p.push('until: give until (ISO time) or ttlSeconds, exactly one');
    return undefined;
  }
  if (ttl !== undefined) {
    if (typeof ttl === 'number' && Number.isInteger(ttl) && ttl >= 1 && ttl <= MAX_BAN_SECONDS)
      return nowMs + ttl * 1000;
    p.push(`ttlSeconds: must be an integer from 1 to ${MAX_BAN_SECONDS}`);
    return undefined;
  }
  const ms = typeof until === 'string' && ISO_TIME_WITH_ZONE.test(until) ? Date.parse(until) : NaN;
  if (!Number.isFinite(ms)) p.push('until: must be an ISO 8601 time with a zone');
  else if (ms <= nowMs) p.push('until: must be in the future');
  else if (ms > nowMs + MAX_BAN_SECONDS * 1000) p.push('until: at most a year ahead');
  else return ms;
  return undefined;
}
