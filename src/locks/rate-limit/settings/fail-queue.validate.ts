import { isRecord } from '../../../common/is-record.js';
import { parseDuration } from '../core/rate-parse.js';
import type { FailQueueConfig, QueueFallback } from '../core/rate-limit-slice.types.js';

const FALLBACKS: readonly QueueFallback[] = ['local', 'closed', 'open'];
const MAX_WAIT_MS = 30_000;
const DEFAULT_WAIT_MS = 2_000;

/** failMode `queue`, compiled: the wait bound in milliseconds and the failMode that decides after it. */
export interface CompiledFailQueue {
  maxWaitMs: number;
  then: QueueFallback;
}

/** Problems with a slice's `failQueue` (empty = valid): only beside failMode `queue`. */
export function validateFailQueue(slice: Record<string, unknown>, path: string): string[] {
  const q = slice.failQueue;
  if (q === undefined) return [];
  const at = `${path}.failQueue`;
  if (slice.failMode !== 'queue') return [`${at}: only with failMode: queue`];
  if (!isRecord(q)) return [`${at}: must be an object {maxWait?, then?}`];
  const p: string[] = [];
  for (const k of Object.keys(q))
    if (k !== 'maxWait' && k !== 'then')
      p.push(`${at}.${k}: unknown option (known: maxWait, then)`);
  if (q.maxWait !== undefined) {
    const ms = parseDuration(q.maxWait);
    if (ms === undefined || ms < 1 || ms > MAX_WAIT_MS)
      p.push(`${at}.maxWait: must be a duration from 1 ms to 30 s, such as "2s"`);
  }
  if (q.then !== undefined && !FALLBACKS.includes(q.then as QueueFallback))
    p.push(`${at}.then: must be one of ${FALLBACKS.join(', ')}`);
  return p;
}

/** The validated `failQueue` with its defaults (2 s, then `local`). */
export function compileFailQueue(q: FailQueueConfig | undefined): CompiledFailQueue {
  const ms = q?.maxWait === undefined ? DEFAULT_WAIT_MS : parseDuration(q.maxWait);
  return { maxWaitMs: Math.round(ms ?? DEFAULT_WAIT_MS), then: q?.then ?? 'local' };
}
