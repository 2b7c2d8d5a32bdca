/** What LOG_FORMAT may say: `auto` picks by where stdout goes. */
export const LOG_FORMATS = ['auto', 'pretty', 'json'] as const;

export type LogFormatSetting = (typeof LOG_FORMATS)[number];

/** How log lines are written: JSON lines for collectors, or lines for people. */
export type LogFormat = 'pretty' | 'json';

/**
 * The format for a setting: `auto` is `pretty` when stdout is a terminal and
 * `json` otherwise (a pipe, a file, a container's log driver).
 */
export function logFormatFor(setting: LogFormatSetting, stdoutIsTTY: boolean): LogFormat {
  if (setting === 'auto') return stdoutIsTTY ? 'pretty' : 'json';
  return setting;
}

/**
 * Nest's contexts that write one line per module or per route at start
 * (about a hundred here): useful when wiring breaks, noise otherwise, so
 * they are logged at `debug`.
 */
export const CHATTY_NEST_CONTEXTS: ReadonlySet<string> = new Set([
  'InstanceLoader',
  'RouterExplorer',
  'RoutesResolver',
]);
