import type { BucketSpec, DecideRequest } from '../core/decision.types.js';
import type { ScriptArgs } from './redis-script-args.js';
import { pushFastBucket, pushHashBucket, pushRiskParams } from './bucket-argv.js';
import { gcra } from '../core/kinds/gcra.js';
import type { Argv } from './redis-store.options.js';
import type { RiskParams } from '../core/risk.types.js';

/** A bucket spec already in a batch call: its bucket, the degrade factor it was sent with, its 1-based index. */
interface SpecRef {
  b: BucketSpec;
  factor: number;
  index: number;
}

/**
 * KEYS and ARGV of one `ratelimit_decide_batch` call (one hash slot): each distinct key once; equal buckets
 * (specs) and equal requests (shapes) sent once, so a request usually costs one argument. `records`: the number
 * of risk records, the last KEYS.
 */
export function batchArgs(
  list: readonly { req: DecideRequest }[],
  clock: Argv,
): ScriptArgs & { records: number } {
  const keys: string[] = [];
  const byKey = new Map<string, { ki: number; refs: SpecRef[] }>();
  const specs: Argv = [];
  let specCount = 0;
  const shapeIndex = new Map<string, number>();
  const shapes: Argv = [];
  const order: number[] = [];
  for (const { req } of list) {
    const factor = req.degradeAt > 0 || req.degradedHint ? req.degradeFactor : 1;
    const at = req.degradeAt > 0 ? req.degradeAt : 0;
    let sig = `${at} ${req.degradedHint ? 1 : 0}`;
    const idx: number[] = new Array<number>(req.buckets.length);
    for (let i = 0; i < req.buckets.length; i++) {
      const b = req.buckets[i]!;
      let k = byKey.get(b.key);
      if (!k) byKey.set(b.key, (k = { ki: keys.push(b.key), refs: [] }));
      let ref = k.refs.find(
        (r) =>
          r.b.kind === b.kind &&
          r.b.capacity === b.capacity &&
          r.b.intervalUs === b.intervalUs &&
          r.b.cost === b.cost &&
          r.b.shadow === b.shadow &&
          r.b.soft === b.soft &&
          r.b.degradable === b.degradable &&
          r.b.risky === b.risky &&
          r.factor === factor,
      );
      if (!ref) {
        k.refs.push((ref = { b, factor, index: ++specCount }));
        // A spec's ARGV: key index, then the bucket's fast-path values (its degraded ones always, when degradable),
        // and when risk-scaled what the script scales by a request's band: capacity, interval, cost, factor.
        // A hash kind (concurrency, tokens; flag 32): its kind code, capacity, interval, cost and factor instead.
        specs.push(k.ki);
        if (b.kind !== gcra.code) pushHashBucket(specs, b, factor);
        else {
          pushFastBucket(specs, b, b.degradable, factor, specs, b.risky === true);
          if (b.risky) specs.push(b.capacity, b.intervalUs, b.cost, factor);
        }
      }
      idx[i] = ref.index;
      sig += ` ${ref.index}`;
    }
    let shape = shapeIndex.get(sig);
    if (shape === undefined) {
      shapeIndex.set(sig, (shape = shapeIndex.size + 1));
      shapes.push(idx.length, at, req.degradedHint ? '1' : '0', ...idx);
    }
    order.push(shape);
  }
  const args: Argv = [
    ...clock,
    specCount,
    shapeIndex.size,
    list.length,
    ...specs,
    ...shapes,
    ...order,
  ];
  if (list.some(({ req }) => req.claim || req.told)) {
    // Extras: per request its claim key, claim TTL and first told key, as indexes into KEYS (after the buckets).
    args.push('e');
    for (const { req } of list) {
      args.push(req.claim ? keys.push(req.claim.key) : 0, req.claim ? req.claim.ttlMs : 0);
      const first = keys.length + 1;
      if (req.told) keys.push(...req.told);
      args.push(req.told ? first : 0);
    }
  }
  if (list.some(({ req }) => req.buckets.some((b) => b.leaseId !== undefined))) {
    // Leases: per request its lease id ('' when it takes none).
    args.push('l');
    for (const { req } of list) args.push(req.buckets.find((b) => b.leaseId)?.leaseId ?? '');
  }
  const records = list.some(({ req }) => req.risk?.keys.length) ? pushRisk(list, keys, args) : 0;
  return { keys, args, records };
}

/**
 * The risk section: 'k', the distinct records (appended to KEYS), the parameter blocks (one per tier in the
 * batch), then per request its block (0 = not scored), its record count, how many are verified and their indexes.
 * Returns the count.
 */
function pushRisk(list: readonly { req: DecideRequest }[], keys: string[], args: Argv): number {
  const records = new Map<string, number>();
  const blocks = new Map<RiskParams, number>();
  const blockArgs: Argv = [];
  const per: Argv = [];
  for (const { req } of list) {
    const r = req.risk;
    if (!r || r.keys.length === 0) {
      per.push(0);
      continue;
    }
    let b = blocks.get(r.params);
    if (b === undefined) {
      blocks.set(r.params, (b = blocks.size + 1));
      pushRiskParams(blockArgs, r.params);
    }
    per.push(b, r.keys.length, r.verified ?? 0);
    for (const key of r.keys) {
      let j = records.get(key);
      if (j === undefined) records.set(key, (j = records.size + 1));
      per.push(j);
    }
  }
  keys.push(...records.keys());
  args.push('k', records.size, blocks.size, ...blockArgs, ...per);
  return records.size;
}
