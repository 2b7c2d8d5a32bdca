/** Number and time formatting for the console (English, compact). */

const INT = new Intl.NumberFormat('en-US');

export function fmtInt(n: number | undefined | null): string {
  return n === undefined || n === null ? '—' : INT.format(Math.round(n));
}

/** A rate per second with a sensible number of decimals. */
export function fmtRate(perSecond: number | undefined | null): string {
  if (perSecond === undefined || perSecond === null || !Number.isFinite(perSecond)) return '—';
  if (perSecond === 0) return '0';
  if (perSecond < 0.1) return perSecond.toFixed(3);
  if (perSecond < 10) return perSecond.toFixed(1);
  return INT.format(Math.round(perSecond));
}

/** A ratio 0–1 as a percentage; small ratios (false-positive rates) keep their digits. */
export function fmtRatio(r: number | undefined | null): string {
  if (r === undefined || r === null || !Number.isFinite(r)) return '—';
  const pct = r * 100;
  if (pct === 0) return '0 %';
  if (pct < 1) return `${pct.toPrecision(2)} %`;
  return `${pct.toFixed(1)} %`;
}

export function fmtBytes(n: number | undefined | null): string {
  if (n === undefined || n === null) return '—';
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let v = n;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return `${u === 0 ? v : v.toFixed(1)} ${units[u]}`;
}

export function fmtMs(ms: number | undefined | null): string {
  if (ms === undefined || ms === null) return '—';
  return ms < 10 ? `${ms.toFixed(1)} ms` : `${INT.format(Math.round(ms))} ms`;
}

/** "in 14 min", "3 s ago" — `at` and `now` in epoch ms. */
export function fmtRelative(at: number, now: number): string {
  const d = Math.round((at - now) / 1000);
  const abs = Math.abs(d);
  if (abs < 2) return 'just now';
  const text =
    abs < 60
      ? `${abs} s`
      : abs < 3600
        ? `${Math.round(abs / 60)} min`
        : abs < 86_400
          ? `${(abs / 3600).toFixed(1)} h`
          : `${(abs / 86_400).toFixed(1)} d`;
  return d >= 0 ? `in ${text}` : `${text} ago`;
}

/** Local date and time, to the second. */
export function fmtTime(at: number | string): string {
  const d = typeof at === 'number' ? new Date(at) : new Date(at);
  return Number.isNaN(d.getTime()) ? String(at) : d.toLocaleString('en-GB', { hour12: false });
}

/** A JSON value on one line, for diffs and audit entries. */
export function fmtValue(v: unknown): string {
  if (v === undefined) return '(none)';
  const s = JSON.stringify(v);
  return s.length > 160 ? `${s.slice(0, 157)}…` : s;
}
