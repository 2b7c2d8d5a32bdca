import { SHIPPED_POLICIES } from './app.policies.js';
import type { RampartConfig } from './config/config.types.js';
import { loadConfig } from './config/load-config.js';

/** The service's configuration: the environment and CONFIG_FILE over the shipped policies. */
export function loadAppConfig(
  env: Record<string, string | undefined> = process.env,
): RampartConfig {
  return loadConfig(env, SHIPPED_POLICIES);
}
