/** The admin API's Telegram views, as the console reads them, and the dead-letter filter. */

export type BotState = 'active' | 'cooldown' | 'disabled' | 'revoked';

export interface BotView {
  id: string;
  scope: string;
  /** Fingerprint of the token (never the token). */
  token: string;
  state: BotState;
  until?: string;
  reason?: string;
  rotating: boolean;
  inflight: number;
  health: 'up' | 'out' | 'probing';
  answers_15m: number;
  rate_limited_15m: number;
  rate_limited_ratio: number | null;
  queue_jobs?: number;
  queue_lag_ms?: number;
}

export interface QueueView {
  queue: string;
  kind: 'scope' | 'bot';
  bots: string[];
  jobs: number;
  lanes: number;
  lag_ms: number;
}

export interface DeadJob {
  job_id: string;
  app: string;
  /** `<app>/<job_id>`: what replay takes. */
  ref: string;
  method: string;
  bot_scope: string;
  bot?: string;
  reason?: string;
  attempts: number;
  last_error?: string;
  created_at: string;
  finished_at?: string;
}

export interface DeadFilter {
  reason: string;
  app: string;
}

/** The dead jobs a filter keeps ('' = any). */
export function filterDead(jobs: readonly DeadJob[], f: DeadFilter): DeadJob[] {
  return jobs.filter((j) => (!f.reason || j.reason === f.reason) && (!f.app || j.app === f.app));
}

/** The distinct values of a field, sorted (the filters' choices). */
export function choices(jobs: readonly DeadJob[], field: 'reason' | 'app'): string[] {
  return [...new Set(jobs.map((j) => j[field] ?? ''))].filter(Boolean).sort();
}

/** "1.2 s", "3 min" — a lag in milliseconds. */
export function fmtLag(ms: number | undefined): string {
  if (ms === undefined) return '—';
  if (ms < 1000) return ms === 0 ? '0' : `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  if (ms < 3_600_000) return `${Math.round(ms / 60_000)} min`;
  return `${(ms / 3_600_000).toFixed(1)} h`;
}
