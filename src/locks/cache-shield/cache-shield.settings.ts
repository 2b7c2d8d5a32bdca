import { Inject } from '@nestjs/common';
import { ConfigError } from '../../config/config.error.js';
import type { RampartConfig } from '../../config/config.types.js';
import type { CacheShieldSettings } from './cache-shield.types.js';
import { validateSettings } from './cache-shield.validate.js';

export const CACHE_SHIELD_SETTINGS = Symbol('CACHE_SHIELD_SETTINGS');

/** `constructor(@InjectShieldSettings() settings: CacheShieldSettings)`. */
export const InjectShieldSettings = (): ParameterDecorator => Inject(CACHE_SHIELD_SETTINGS);

/** Reads and validates CONFIG_FILE `cacheShield:`; a bad setting stops the boot with every problem listed. */
export function cacheShieldSettings(config: RampartConfig): CacheShieldSettings {
  const { settings, problems } = validateSettings(config.sections.cacheShield);
  if (problems.length > 0) throw new ConfigError(problems);
  return settings;
}
