import { ConfigError } from '../config/config.error.js';
import type { RampartConfig } from '../config/config.types.js';

/** Settings of the admin module (CONFIG_FILE section `admin:`). */
export interface AdminSettings {
  /**
   * Milliseconds between two checks of the policy, app and ban versions in Redis: the safety net behind pub/sub
   * (a reconnect of the pub/sub connection re-reads at once). Default 30000.
   */
  syncIntervalMs: number;
  /** Policy versions kept in Redis (older ones are deleted, so cannot be rolled back to). Default 100. */
  historyLimit: number;
  /** Approximate number of audit entries kept (Redis stream `MAXLEN ~`; exact in memory). Default 10000. */
  auditMaxLen: number;
  /** Milliseconds between two writes of this instance's lock counters to Redis (for `/admin/status`). Default 2000. */
  statsIntervalMs: number;
  /** Command timeout in milliseconds of the admin's own Redis connection (the limiter's stays short). Default 1000. */
  redisTimeoutMs: number;
  /** Milliseconds between two points of the 15-minute counter series (`/admin/status/series`, the console's charts). Default 5000. */
  seriesStepMs: number;
  /** Milliseconds between two samples of the Redis-side figures (memory in use, key counts); one instance samples per interval. Default 30000. */
  redisSampleMs: number;
  /** Most keys one sample SCANs to count rate-limit keys; past it the count is estimated from the share seen. Default 200000. */
  redisScanMaxKeys: number;
}

export const ADMIN_SETTINGS = Symbol('ADMIN_SETTINGS');

const LIMITS: Record<keyof AdminSettings, [def: number, min: number, max: number]> = {
  syncIntervalMs: [30_000, 50, 600_000],
  historyLimit: [100, 2, 10_000],
  auditMaxLen: [10_000, 10, 1_000_000],
  statsIntervalMs: [2_000, 50, 60_000],
  redisTimeoutMs: [1_000, 10, 60_000],
  seriesStepMs: [5_000, 250, 60_000],
  redisSampleMs: [30_000, 1_000, 3_600_000],
  redisScanMaxKeys: [200_000, 1_000, 100_000_000],
};

/** Reads and validates `sections.admin`; throws a ConfigError listing every problem. */
export function adminSettings(config: RampartConfig): AdminSettings {
  const raw = config.sections.admin ?? {};
  const problems: string[] = [];
  const out = {} as AdminSettings;
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw new ConfigError(['CONFIG_FILE: admin must be an object']);
  for (const k of Object.keys(raw))
    if (!(k in LIMITS))
      problems.push(
        `CONFIG_FILE: admin.${k} is unknown (known: ${Object.keys(LIMITS).join(', ')})`,
      );
  for (const [key, [def, min, max]] of Object.entries(LIMITS) as [
    keyof AdminSettings,
    [number, number, number],
  ][]) {
    const v = (raw as Record<string, unknown>)[key];
    if (v === undefined) out[key] = def;
    else if (!Number.isInteger(v) || (v as number) < min || (v as number) > max)
      problems.push(`CONFIG_FILE: admin.${key} must be an integer between ${min} and ${max}`);
    else out[key] = v as number;
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return out;
}
