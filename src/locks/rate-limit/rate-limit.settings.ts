import { Inject } from '@nestjs/common';
import { ConfigError } from '../../config/config.error.js';
import type { RampartConfig } from '../../config/config.types.js';
import { isRecord } from '../../common/is-record.js';
import { parseDuration } from './core/rate-parse.js';
import type { RateLimitSettings } from './rate-limit.types.js';
import { posInt } from './rate-limit.validate-rule.js';
import { defaultLoadSettings, validateLoad } from './settings/load.settings.js';
import { defaultRiskSettings, validateRisk } from './settings/risk.settings.js';
import { MEMORY_ENTRIES, RISK_CHAT_SETS, RISK_MARKERS, RISK_RECORDS } from './core/memory-caps.js';

export const RATE_LIMIT_SETTINGS = Symbol('RATE_LIMIT_SETTINGS');

/** `constructor(@InjectRateLimitSettings() settings: RateLimitSettings)`. */
export const InjectRateLimitSettings = (): ParameterDecorator => Inject(RATE_LIMIT_SETTINGS);

/** Reads and validates CONFIG_FILE `rateLimit:`; a bad setting stops the boot with every problem listed. */
export function rateLimitSettings(config: RampartConfig): RateLimitSettings {
  const { settings, problems } = validateSettings(config.sections.rateLimit);
  if (problems.length > 0) throw new ConfigError(problems);
  return settings;
}

const SETTINGS_KEYS = new Set([
  'userHeader',
  'ipv6Prefix',
  'clock',
  'fuse',
  'denyCacheSize',
  'memory',
  'heartbeat',
  'closedRetryAfter',
  'probeAfter',
  'maxPaced',
  'failQueueMax',
  'maxPacedPerApp',
  'failQueuePerApp',
  'risk',
  'load',
]);

/** Reads CONFIG_FILE `rateLimit:`; returns the settings and every problem found. */
export function validateSettings(raw: unknown): {
  settings: RateLimitSettings;
  problems: string[];
} {
  const settings: RateLimitSettings = {
    clock: 'redis',
    ipv6Prefix: 64,
    denyCacheSize: 100_000,
    memory: {
      entries: MEMORY_ENTRIES,
      riskRecords: RISK_RECORDS,
      riskMarkers: RISK_MARKERS,
      riskChatSets: RISK_CHAT_SETS,
    },
    heartbeatMs: 4_000,
    closedRetryAfterS: 1,
    probeAfterMs: 250,
    maxPaced: 1_000,
    failQueueMax: 1_000,
    maxPacedPerApp: 250,
    failQueuePerApp: 250,
    risk: defaultRiskSettings(),
    load: defaultLoadSettings(),
  };
  if (raw === undefined) return { settings, problems: [] };
  const p: string[] = [];
  if (!isRecord(raw)) return { settings, problems: ['CONFIG_FILE rateLimit: must be an object'] };
  const at = (k: string): string => `CONFIG_FILE rateLimit.${k}`;
  for (const k of Object.keys(raw))
    if (!SETTINGS_KEYS.has(k))
      p.push(`${at(k)}: unknown option (known: ${[...SETTINGS_KEYS].join(', ')})`);
  if (raw.userHeader !== undefined) {
    if (typeof raw.userHeader !== 'string' || !/^[A-Za-z0-9-]{1,64}$/.test(raw.userHeader))
      p.push(`${at('userHeader')}: must be a header name`);
    else settings.userHeader = raw.userHeader.toLowerCase();
  }
  if (raw.ipv6Prefix !== undefined) {
    if (!posInt(raw.ipv6Prefix) || (raw.ipv6Prefix as number) > 128)
      p.push(
        `${at('ipv6Prefix')}: must be an integer from 1 to 128 (bits of an IPv6 address per ip subject)`,
      );
    else settings.ipv6Prefix = raw.ipv6Prefix as number;
  }
  if (raw.clock !== undefined) {
    if (raw.clock !== 'redis' && raw.clock !== 'app')
      p.push(`${at('clock')}: must be redis or app`);
    else settings.clock = raw.clock;
  }
  if (raw.fuse !== undefined) {
    const f = raw.fuse;
    const windowMs = isRecord(f) ? parseDuration(f.window) : undefined;
    if (!isRecord(f) || !posInt(f.limit) || windowMs === undefined || windowMs > 60_000) {
      p.push(`${at('fuse')}: must be {limit: integer ≥ 1, window: duration ≤ 60s such as "1s"}`);
    } else settings.fuse = { limit: f.limit as number, windowMs: Math.ceil(windowMs) };
  }
  const num = (
    k: string,
    min: number,
    max: number,
    set: (n: number) => void,
    duration = false,
  ): void => {
    if (raw[k] === undefined) return;
    const n = duration ? parseDuration(raw[k]) : raw[k];
    if (typeof n !== 'number' || !Number.isInteger(Math.round(n)) || n < min || n > max)
      p.push(
        `${at(k)}: must be ${duration ? 'a duration' : 'an integer'} between ${min} and ${max}${duration ? ' ms' : ''}`,
      );
    else set(Math.round(n));
  };
  num('denyCacheSize', 0, 10_000_000, (n) => (settings.denyCacheSize = n));
  const mem = raw.memory;
  if (mem !== undefined) {
    const ok = (v: unknown): boolean =>
      v === undefined || (posInt(v) && (v as number) >= 10 && (v as number) <= 50_000_000);
    const keys = ['entries', 'riskRecords', 'riskMarkers', 'riskChatSets'];
    if (
      !isRecord(mem) ||
      keys.some((k) => !ok(mem[k])) ||
      Object.keys(mem).some((k) => !keys.includes(k))
    )
      p.push(
        `${at('memory')}: must be {entries?, riskRecords?, riskMarkers?, riskChatSets?}, integers from 10 to 50000000`,
      );
    else settings.memory = { ...settings.memory, ...(mem as Partial<RateLimitSettings['memory']>) };
  }
  num('heartbeat', 100, 60_000, (n) => (settings.heartbeatMs = n), true);
  num('closedRetryAfter', 1, 3_600, (n) => (settings.closedRetryAfterS = n));
  num('probeAfter', 10, 60_000, (n) => (settings.probeAfterMs = n), true);
  num('maxPaced', 0, 1_000_000, (n) => (settings.maxPaced = n));
  num('failQueueMax', 1, 100_000, (n) => (settings.failQueueMax = n));
  // A quarter of the instance's room by default: one app cannot fill it and refuse the others' waits.
  settings.maxPacedPerApp = Math.ceil(settings.maxPaced / 4);
  settings.failQueuePerApp = Math.ceil(settings.failQueueMax / 4);
  num('maxPacedPerApp', 0, 1_000_000, (n) => (settings.maxPacedPerApp = n));
  num('failQueuePerApp', 1, 100_000, (n) => (settings.failQueuePerApp = n));
  const risk = validateRisk(raw.risk, at('risk'));
  const load = validateLoad(raw.load, at('load'));
  settings.risk = risk.risk;
  settings.load = load.load;
  p.push(...risk.problems, ...load.problems);
  return { settings, problems: p };
}
