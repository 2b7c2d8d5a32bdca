/** Thrown at boot when the configuration is invalid; lists every problem at once. */
export class ConfigError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(
      `Invalid configuration (${problems.length} problem${problems.length === 1 ? '' : 's'}):\n  - ${problems.join('\n  - ')}`,
    );
    this.name = 'ConfigError';
  }
}
