import { isDeepStrictEqual } from 'node:util';
import type { AuditChange } from './audit-log.js';
import { isRecord } from '../../common/is-record.js';

/** Keys whose values are never written to the audit log. */
const SECRET_KEY = /(secret|password|passwd|apikey|api_key|credential|authorization|private)/i;
/** Most changes one entry lists; the rest is summed up in one line. */
const MAX_CHANGES = 100;

/**
 * The leaf-level differences between two JSON values, as dotted paths.
 * Objects are compared key by key; arrays and scalars as whole values.
 * Values under secret-looking keys are replaced by `***`.
 */
export function diffValues(before: unknown, after: unknown, path = ''): AuditChange[] {
  const out: AuditChange[] = [];
  walk(before, after, path, out);
  if (out.length <= MAX_CHANGES) return out;
  return [
    ...out.slice(0, MAX_CHANGES),
    { path: '…', to: `${out.length - MAX_CHANGES} more changes not listed` },
  ];
}

function walk(a: unknown, b: unknown, path: string, out: AuditChange[]): void {
  if (isDeepStrictEqual(a, b)) return;
  if (isRecord(a) && isRecord(b)) {
    for (const k of new Set([...Object.keys(a), ...Object.keys(b)]))
      walk(a[k], b[k], path ? `${path}.${k}` : k, out);
    return;
  }
  const secret = path.split('.').some((segment) => SECRET_KEY.test(segment));
  const change: AuditChange = { path };
  if (a !== undefined) change.from = secret ? '***' : masked(a);
  if (b !== undefined) change.to = secret ? '***' : masked(b);
  out.push(change);
}

/** A copy of a value with everything under a secret-looking key replaced by `***`. */
export function masked(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(masked);
  if (!isRecord(v)) return v;
  return Object.fromEntries(
    Object.entries(v).map(([k, x]) => [k, SECRET_KEY.test(k) ? '***' : masked(x)]),
  );
}
