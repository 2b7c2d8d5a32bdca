/**
 * The process environment, for settings that name an environment variable
 * holding a secret (e.g. a bot's `tokenEnv`). The one reader of process.env
 * outside load-config, so that secrets are read where configuration is.
 */
export function readSecretEnv(): Record<string, string | undefined> {
  return process.env;
}
