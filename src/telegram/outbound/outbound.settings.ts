import { parseDuration } from '../../locks/rate-limit/core/rate-parse.js';
import { callbackSettings } from './callbacks/callback.settings.js';
import { OUTBOUND_DEFAULTS } from './outbound.defaults.js';
import type { OutboundSettings } from './outbound-settings.types.js';
import { parseBuckets } from './send-buckets.settings.js';

export type { OutboundBuckets, OutboundSettings, SendBucket } from './outbound-settings.types.js';
export { OUTBOUND_DEFAULTS } from './outbound.defaults.js';
export { parseBuckets } from './send-buckets.settings.js';

const MS_KEYS = [
  'backoffBaseMs',
  'backoffMaxMs',
  'cooldownJitterMs',
  'longCooldownMs',
  'requestTimeoutMs',
  'leaseMs',
  'pollMs',
  'safetyPollMs',
  'defaultDeadlineMs',
  'retentionMs',
  'registryRefreshMs',
  'reserveAheadMs',
  'holdMs',
  'departWindowMs',
  'probeMs',
] as const;

/** Parses `telegram.outbound`; pushes every problem to `p`. */
export function outboundSettings(
  raw: unknown,
  p: string[],
  env: Record<string, string | undefined> = {},
): OutboundSettings {
  const at = 'CONFIG_FILE: telegram.outbound';
  const out = structuredClone(OUTBOUND_DEFAULTS);
  if (raw === undefined) return out;
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    p.push(`${at} must be an object`);
    return out;
  }
  for (const [k, v] of Object.entries(raw)) {
    if ((MS_KEYS as readonly string[]).includes(k)) {
      const ms = parseDuration(v);
      const zeroOk = k === 'cooldownJitterMs' || k === 'reserveAheadMs' || k === 'holdMs';
      if (v === 0 && zeroOk) out[k as (typeof MS_KEYS)[number]] = 0;
      else if (ms === undefined || (!zeroOk && ms < 1))
        p.push(`${at}.${k} must be milliseconds (or "<n><unit>")`);
      else out[k as (typeof MS_KEYS)[number]] = Math.round(ms);
    } else if (k === 'workers') {
      if (typeof v === 'boolean') out.workers = v;
      else p.push(`${at}.workers must be true or false`);
    } else if (
      k === 'concurrency' ||
      k === 'maxAttempts' ||
      k === 'partitions' ||
      k === 'departMax' ||
      k === 'unhealthyAfter'
    ) {
      if (Number.isInteger(v) && (v as number) >= 1 && (v as number) <= 1024) out[k] = v as number;
      else p.push(`${at}.${k} must be an integer 1–1024`);
    } else if (k === 'memoryMaxJobs' || k === 'memoryChatEntries') {
      if (Number.isInteger(v) && (v as number) >= 100 && (v as number) <= 50_000_000)
        out[k] = v as number;
      else p.push(`${at}.${k} must be an integer 100–50000000`);
    } else if (k === 'aimdBackoff' || k === 'aimdRecoverPerSecond') {
      const ok = typeof v === 'number' && v > 0 && (k === 'aimdRecoverPerSecond' || v < 1);
      if (ok) out[k] = v;
      else
        p.push(`${at}.${k} must be a number${k === 'aimdBackoff' ? ' between 0 and 1' : ' > 0'}`);
    } else if (k === 'ambiguous') {
      if (v === 'dead' || v === 'retry') out.ambiguous = v;
      else p.push(`${at}.ambiguous must be dead or retry`);
    } else if (k === 'buckets') {
      out.buckets = parseBuckets(v, out.buckets, `${at}.buckets`, p);
    } else if (k === 'callbacks') {
      out.callbacks = callbackSettings(v, `${at}.callbacks`, p, env);
    } else if (k === 'methodWeights' && typeof v === 'object' && v !== null) {
      for (const [m, w] of Object.entries(v as Record<string, unknown>)) {
        if (Number.isInteger(w) && (w as number) >= 1) out.methodWeights[m] = w as number;
        else p.push(`${at}.methodWeights.${m} must be an integer ≥ 1`);
      }
    } else p.push(`${at}.${k} is not a known option`);
  }
  if (out.leaseMs <= out.requestTimeoutMs)
    p.push(`${at}.leaseMs must be longer than requestTimeoutMs (a lease outlives a send)`);
  return out;
}
