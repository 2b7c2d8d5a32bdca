import { Inject } from '@nestjs/common';
import { ConfigError } from '../../config/config.error.js';
import type { RampartConfig } from '../../config/config.types.js';
import { DEFAULT_SETTINGS, type CacheShieldSettings } from './cache-shield.types.js';
import { num } from './cache-shield.validate.js';

export const CACHE_SHIELD_SETTINGS = Symbol('CACHE_SHIELD_SETTINGS');

/** `constructor(@InjectShieldSettings() settings: CacheShieldSettings)`. */
export const InjectShieldSettings = (): ParameterDecorator => Inject(CACHE_SHIELD_SETTINGS);

/** Reads and validates CONFIG_FILE `cacheShield:`; a bad setting stops the boot with every problem listed. */
export function cacheShieldSettings(config: RampartConfig): CacheShieldSettings {
  const { settings, problems } = validateSettings(config.sections.cacheShield);
  if (problems.length > 0) throw new ConfigError(problems);
  return settings;
}

const LIMITS: Record<keyof CacheShieldSettings, [number, number, boolean]> = {
  targetFpRate: [1e-9, 0.5, false],
  measureSample: [0, 10_000_000, true],
  revisionPollMs: [0, 3_600_000, true],
  resyncMs: [100, 86_400_000, true],
  buildLockMs: [1_000, 86_400_000, true],
  buildWaitMs: [0, 86_400_000, true],
  addGraceMs: [0, 86_400_000, true],
  rebuildAfterGrowth: [0, 100, false],
  driftFactor: [1, 1_000, false],
  driftMinSamples: [1, 1e12, true],
  memoryCacheEntries: [0, 10_000_000, true],
  hotCacheEntries: [0, 1_000_000, true],
  bloomTtlDays: [1, 3_650, true],
};

/** Reads CONFIG_FILE `cacheShield:` over the defaults, listing every problem. */
export function validateSettings(raw: unknown): {
  settings: CacheShieldSettings;
  problems: string[];
} {
  const settings = { ...DEFAULT_SETTINGS };
  if (raw === undefined) return { settings, problems: [] };
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    return { settings, problems: ['CONFIG_FILE: cacheShield must be an object'] };
  const problems: string[] = [];
  for (const [k, v] of Object.entries(raw)) {
    const limit = LIMITS[k as keyof CacheShieldSettings];
    if (!limit) {
      problems.push(
        `CONFIG_FILE: cacheShield.${k} is not a known option (${Object.keys(LIMITS).join(', ')})`,
      );
      continue;
    }
    const before = problems.length;
    num(v, `CONFIG_FILE: cacheShield.${k}`, limit[0], limit[1], limit[2], problems);
    if (problems.length === before) settings[k as keyof CacheShieldSettings] = v as number;
  }
  return { settings, problems };
}
