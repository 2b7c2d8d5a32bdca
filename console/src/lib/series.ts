import type { Outcome, OutcomeCounts, SeriesPoint } from './types.js';

/** The outcomes the console charts (skipped rules are not a decision). */
export const CHARTED: readonly Exclude<Outcome, 'skipped'>[] = [
  'allowed',
  'rejected',
  'shadow_rejected',
  'short_circuited',
];

/** Columns for uPlot: x in Unix seconds, then one array per series. */
export type Columns = [number[], ...(number | null)[][]];

type ByLock = Record<string, Partial<OutcomeCounts>>;

const total = (c: Partial<OutcomeCounts>): number =>
  Object.values(c).reduce<number>((s, n) => s + (n ?? 0), 0);

/**
 * Requests of one policy in a step: the decisions of its busiest lock. Every
 * request meets the first lock that is on, which decides it one way or
 * another; later locks see fewer (the rejected ones never reach them).
 */
export function requestsIn(byLock: ByLock | undefined): number {
  if (!byLock) return 0;
  return Math.max(0, ...Object.values(byLock).map(total));
}

/** Requests per second of each policy, per point. */
export function requestColumns(
  points: readonly SeriesPoint[],
  policies: readonly string[],
): Columns {
  return [
    points.map((p) => p.at / 1000),
    ...policies.map((name) => points.map((p) => requestsIn(p.byPolicy[name]) / p.seconds)),
  ];
}

/** Allowed, rejected, shadow-rejected and short-circuited per second of one lock (all policies), per point. */
export function lockColumns(points: readonly SeriesPoint[], lock: string): Columns {
  return [
    points.map((p) => p.at / 1000),
    ...CHARTED.map((o) =>
      points.map(
        (p) =>
          Object.values(p.byPolicy).reduce((s, byLock) => s + (byLock[lock]?.[o] ?? 0), 0) /
          p.seconds,
      ),
    ),
  ];
}

/** Average rates over the points of the last `ms` before `now`: requests per policy and outcomes per policy. */
export function recentRates(
  points: readonly SeriesPoint[],
  now: number,
  ms: number,
): Record<string, { requests: number } & Record<Exclude<Outcome, 'skipped'>, number>> {
  const recent = points.filter((p) => p.at > now - ms);
  const seconds = recent.reduce((s, p) => s + p.seconds, 0);
  const out: ReturnType<typeof recentRates> = {};
  if (seconds <= 0) return out;
  for (const p of recent) {
    for (const [policy, byLock] of Object.entries(p.byPolicy)) {
      const r = (out[policy] ??= {
        requests: 0,
        allowed: 0,
        rejected: 0,
        shadow_rejected: 0,
        short_circuited: 0,
      });
      r.requests += requestsIn(byLock) / seconds;
      for (const o of CHARTED) for (const c of Object.values(byLock)) r[o] += (c[o] ?? 0) / seconds;
    }
  }
  return out;
}

/** Adds newly fetched points (newer than the last one held) and drops those older than the window. */
export function mergePoints(
  held: readonly SeriesPoint[],
  fresh: readonly SeriesPoint[],
  windowMs: number,
  now: number,
): SeriesPoint[] {
  const last = held.length > 0 ? held[held.length - 1]!.at : -Infinity;
  return [...held, ...fresh.filter((p) => p.at > last)].filter((p) => p.at > now - windowMs);
}

/**
 * Milliseconds until the next poll: just after the server's next point is due (its last point's time
 * plus one step, on the server's clock), so the newest point — and the Requests/s tile — is never a
 * whole step behind. Between 250 ms and one step; one step when no point is held yet, or none came for a step.
 */
export function nextPollMs(lastAt: number | undefined, serverNow: number, stepMs: number): number {
  if (lastAt === undefined) return Math.min(stepMs, 1000);
  const due = lastAt + stepMs - serverNow + 150;
  if (due >= 250) return Math.min(stepMs, due);
  // Overdue: asked again soon while the point is just late, then less often, and once a step when no
  // point has come for a whole step (an idle series must not be polled four times a second forever).
  const late = -due;
  return Math.min(stepMs, late < 1000 ? 250 : late < stepMs ? 1000 : stepMs);
}
