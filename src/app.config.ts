import { SHIPPED_POLICIES } from './app.policies.js';
import type { RampartConfig } from './config/config.types.js';
import { loadConfig } from './config/load-config.js';
import { withUpstreamPolicies } from './inference/routing/upstream-policies.js';
import { withBotPolicies } from './telegram/telegram-policies.js';

/** The service's configuration: the environment and CONFIG_FILE over the shipped policies. */
export function loadAppConfig(
  env: Record<string, string | undefined> = process.env,
): RampartConfig {
  const config = loadConfig(env, SHIPPED_POLICIES);
  const policies = withBotPolicies(config.policies, config.sections.telegram);
  return { ...config, policies: withUpstreamPolicies(policies, config.sections.inference) };
}
