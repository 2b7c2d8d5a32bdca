/** One difference between two JSON values. */
export interface Difference {
  /** Dotted path, array items by index: `search.locks.rateLimit.rules.0.capacity`. */
  path: string;
  /** Absent: added. */
  from?: unknown;
  /** Absent: removed. */
  to?: unknown;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Every leaf that differs between `a` and `b`, in a stable order. */
export function diffJson(a: unknown, b: unknown, path = ''): Difference[] {
  if (Object.is(a, b)) return [];
  const join = (k: string | number): string => (path ? `${path}.${k}` : String(k));
  if (isObject(a) && isObject(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
    return keys.flatMap((k) => {
      if (!(k in b)) return [{ path: join(k), from: a[k] }];
      if (!(k in a)) return [{ path: join(k), to: b[k] }];
      return diffJson(a[k], b[k], join(k));
    });
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    const n = Math.max(a.length, b.length);
    const out: Difference[] = [];
    for (let i = 0; i < n; i++) {
      if (i >= b.length) out.push({ path: join(i), from: a[i] });
      else if (i >= a.length) out.push({ path: join(i), to: b[i] });
      else out.push(...diffJson(a[i], b[i], join(i)));
    }
    return out;
  }
  if (a === undefined) return [{ path, to: b }];
  if (b === undefined) return [{ path, from: a }];
  return [{ path, from: a, to: b }];
}
