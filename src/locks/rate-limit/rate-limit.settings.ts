import { Inject } from '@nestjs/common';
import { ConfigError } from '../../config/config.error.js';
import type { RampartConfig } from '../../config/config.types.js';
import type { RateLimitSettings } from './rate-limit.types.js';
import { validateSettings } from './rate-limit.validate.js';

export const RATE_LIMIT_SETTINGS = Symbol('RATE_LIMIT_SETTINGS');

/** `constructor(@InjectRateLimitSettings() settings: RateLimitSettings)`. */
export const InjectRateLimitSettings = (): ParameterDecorator => Inject(RATE_LIMIT_SETTINGS);

/** Reads and validates CONFIG_FILE `rateLimit:`; a bad setting stops the boot with every problem listed. */
export function rateLimitSettings(config: RampartConfig): RateLimitSettings {
  const { settings, problems } = validateSettings(config.sections.rateLimit);
  if (problems.length > 0) throw new ConfigError(problems);
  return settings;
}
