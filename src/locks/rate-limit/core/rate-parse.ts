const UNIT_SECONDS: Record<string, number> = {
  ms: 0.001,
  s: 1,
  sec: 1,
  m: 60,
  min: 60,
  h: 3600,
  hour: 3600,
  d: 86400,
  day: 86400,
};

/**
 * Tokens per second from a rate: a positive number (already per second) or
 * sugar `<tokens>/<unit>` with unit s, sec, m, min, h, hour, d, day — e.g.
 * `6/min` = 0.1, `10/s` = 10, `1000/h`. Undefined when invalid.
 */
export function parseRate(rate: unknown): number | undefined {
  if (typeof rate === 'number') return Number.isFinite(rate) && rate > 0 ? rate : undefined;
  if (typeof rate !== 'string') return undefined;
  const m = /^\s*(\d+(?:\.\d+)?)\s*\/\s*(\d+(?:\.\d+)?)?\s*([a-z]+)\s*$/.exec(rate);
  if (!m) return undefined;
  const per = UNIT_SECONDS[m[3]!];
  const count = Number(m[2] ?? 1);
  const tokens = Number(m[1]);
  if (per === undefined || !(tokens > 0) || !(count > 0)) return undefined;
  return tokens / (count * per);
}

/** Milliseconds from a positive number of milliseconds or `<n><unit>` (`500ms`, `10s`, `1m`, `1h`, `1d`). */
export function parseDuration(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) && value > 0 ? value : undefined;
  if (typeof value !== 'string') return undefined;
  const m = /^\s*(\d+(?:\.\d+)?)\s*([a-z]+)\s*$/.exec(value);
  if (!m) return undefined;
  const per = UNIT_SECONDS[m[2]!];
  const n = Number(m[1]);
  return per === undefined || !(n > 0) ? undefined : n * per * 1000;
}
