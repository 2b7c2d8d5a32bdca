import type { Clock } from '../../../common/clock.js';
import { RedisScriptError } from '../../../redis/redis.errors.js';
import { BucketState, decideBuckets } from '../core/bucket-math.js';
import {
  Decision,
  DecideRequest,
  duplicateDecision,
  reenteredDecision,
} from '../core/decision.types.js';
import { ruleKind } from '../core/rule-kinds.js';
import type { RiskState } from '../core/risk.types.js';
import { riskStateAt } from './redis-replies.js';
import { clockArgs, fastArgs, generalArgs } from './redis-script-args.js';
import type { RedisStoreOptions, ScriptRunner } from './redis-store.options.js';

/**
 * One `ratelimit_decide` call for one request's buckets (one hash slot). The script decides and writes, and
 * returns the state it read; the figures come from bucket-math.ts on that state (the same arithmetic),
 * checked against the script's own allowed / degraded.
 */
export async function decideCall(
  redis: ScriptRunner,
  sub: DecideRequest,
  fast: boolean,
  appClock: Clock,
  clockMode: RedisStoreOptions['clock'],
): Promise<Decision> {
  const { buckets } = sub;
  const clock = clockArgs(appClock, clockMode);
  const { keys, args, penalties } = fast ? fastArgs(sub, clock) : generalArgs(sub, clock);
  const out = await redis.script<(string | number | null)[]>('ratelimit_decide', keys, args);
  if (out[0] === 'dup') return duplicateDecision(appClock.now());
  if (out[0] === 'again') return reenteredDecision(appClock.now());
  // Reply: the string kinds' values (bucket order), penalty strike TATs, then the hash kinds' fields.
  const state: BucketState[] = new Array<BucketState>(buckets.length);
  const kinds = buckets.map((b) => ruleKind(b.kind));
  let o = 0;
  for (let i = 0; i < buckets.length; i++)
    if (kinds[i]!.fields.length === 0) state[i] = { value: kinds[i]!.fromReply([out[o++]]) };
  for (let i = 0; i < buckets.length && penalties > 0; i++) {
    const b = buckets[i]!;
    if (!b.penaltyKey || !b.penalty) continue;
    const p = out[o++];
    (state[i] ??= {}).penaltyTat = p === null ? undefined : Number(p);
  }
  for (let i = 0; i < buckets.length; i++) {
    const n = kinds[i]!.fields.length;
    if (n === 0) continue;
    (state[i] ??= {}).value = kinds[i]!.fromReply(out.slice(o, (o += n)));
  }
  // Risk records ('x' only): s, f, t, r per record.
  const risk: RiskState[] = [];
  for (let j = 0; j < (fast ? 0 : (sub.risk?.keys.length ?? 0)); j++, o += 4)
    risk.push(riskStateAt(out, o));
  const d = decideBuckets(sub, state, out[o] as number, undefined, risk);
  const blocker = sub.told && !d.allowed ? d.blocker : -1;
  if (
    d.allowed !== (out[o + 1] === 1) ||
    d.degraded !== (out[o + 2] === 1) ||
    blocker !== out[o + 4]
  ) {
    throw new RedisScriptError(
      'ratelimit_decide',
      `the script decided allowed=${out[o + 1]} degraded=${out[o + 2]} blocker=${out[o + 4]}, bucket-math.ts on the same state allowed=${d.allowed} degraded=${d.degraded} blocker=${blocker}`,
    );
  }
  if (sub.told && !d.allowed) d.notify = out[o + 3] === 1;
  return d;
}
