import { MAX_USAGE_MODELS, type UsageWrite } from '../core/usage-keys.js';
import type { Settlement } from './rate-limit.store.js';

/** One write of a `ratelimit_settle` call: a reservation to settle, or a usage bucket to add to. */
export type SettleOp = { s: Settlement; u?: undefined } | { u: UsageWrite; s?: undefined };

/** Keys and ARGV of one `ratelimit_settle` call (the script's header): settlements first, then usage buckets. */
export function settleCall(ops: readonly SettleOp[]): {
  keys: string[];
  args: (string | number)[];
} {
  const s = ops.flatMap((o) => (o.s ? [o.s] : []));
  const u = ops.flatMap((o) => (o.u ? [o.u] : []));
  return {
    keys: [...s.map((x) => x.key), ...u.map((x) => x.key)],
    args: [
      s.length,
      MAX_USAGE_MODELS,
      ...s.flatMap((x) => [String(x.reserved), String(x.used), String(x.untilUs)]),
      ...u.flatMap((x) => [x.model, x.prompt, x.completion, x.spend, x.ttlMs]),
    ],
  };
}
