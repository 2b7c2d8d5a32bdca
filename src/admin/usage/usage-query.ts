import { ProblemException } from '../../common/problem.exception.js';
import type { UsageQuery } from '../../locks/rate-limit/rate-limit.admin.js';

const KEYS = ['app', 'user', 'model', 'from', 'to', 'period'];
const APP = /^[A-Za-z0-9._-]{1,128}$/;
const HOUR = 3_600_000;
const DAY = 86_400_000;
/** Longest range of each period (buckets read at most: hours of 31 days, days of 400). */
const MAX_BUCKETS = { hour: 24 * 31, day: 400 } as const;
/** Most app × bucket cells one query reads (every registered app, when no app is named). */
const MAX_CELLS = 20_000;
/** Most rows one answer holds (the rest: `truncated: true`). */
export const MAX_USAGE_ROWS = 5_000;

function invalid(problems: string[]): never {
  throw new ProblemException(400, 'invalid_usage_query', 'Usage query rejected', {
    detail: problems.join('; '),
    problems,
  });
}

/** A date of the query: ISO 8601 (`2026-12-06`, `2026-12-06T10:00:00Z`) or epoch milliseconds. */
function dateOf(v: string): number | undefined {
  const ms = /^\d{1,15}$/.test(v) ? Number(v) : Date.parse(v);
  return Number.isFinite(ms) && ms >= 0 ? ms : undefined;
}

/**
 * `GET /admin/usage` query (docs/admin-api.md#usage): `period` hour|day (default day), `from`/`to` (default: the last
 * 7 days, or 24 hours), `app` (default: every registered app), `user` (needs `app`: users are named by their app),
 * `model`. Every problem is listed at once as 400 `invalid_usage_query`.
 */
export function usageQuery(
  raw: Record<string, unknown>,
  nowMs: number,
  registered: () => string[],
): UsageQuery {
  const p: string[] = [];
  const q: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(raw)) {
    if (!KEYS.includes(k)) p.push(`${k}: unknown parameter (known: ${KEYS.join(', ')})`);
    else if (typeof v !== 'string') p.push(`${k}: give it once`);
    else q[k] = v;
  }
  const period = q.period ?? 'day';
  if (period !== 'hour' && period !== 'day') p.push('period must be hour or day');
  const to = q.to === undefined ? nowMs : dateOf(q.to);
  if (to === undefined) p.push('to must be an ISO 8601 date or epoch milliseconds');
  const span = period === 'hour' ? 24 * HOUR : 7 * DAY;
  const from = q.from === undefined ? (to ?? nowMs) - span : dateOf(q.from);
  if (from === undefined) p.push('from must be an ISO 8601 date or epoch milliseconds');
  if (q.app !== undefined && !APP.test(q.app))
    p.push('app must be an app id ([A-Za-z0-9._-], 1-128)');
  if (q.user !== undefined && (q.user.length === 0 || q.user.length > 256))
    p.push('user must have 1 to 256 characters');
  if (q.user !== undefined && q.app === undefined)
    p.push('user needs app (an app names its users)');
  if (q.model !== undefined && (q.model.length === 0 || q.model.length > 128))
    p.push('model must have 1 to 128 characters');
  if (p.length === 0 && from! >= to!) p.push('from must be before to');
  const per = period === 'hour' ? HOUR : DAY;
  const buckets = p.length === 0 ? Math.ceil((to! - Math.floor(from! / per) * per) / per) : 0;
  if (p.length === 0 && buckets > MAX_BUCKETS[period as 'hour' | 'day'])
    p.push(`from-to spans at most ${MAX_BUCKETS[period as 'hour' | 'day']} ${period}s`);
  if (p.length > 0) invalid(p);
  const apps = q.app !== undefined ? [q.app] : registered().sort();
  if (apps.length * buckets > MAX_CELLS)
    invalid([`${apps.length} apps × ${buckets} ${period}s: name an app or a shorter range`]);
  return {
    period: period as 'hour' | 'day',
    fromMs: from!,
    toMs: to!,
    apps,
    ...(q.user !== undefined ? { user: q.user } : {}),
    ...(q.model !== undefined ? { model: q.model } : {}),
    maxRows: MAX_USAGE_ROWS,
  };
}
