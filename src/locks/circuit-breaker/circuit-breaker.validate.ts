import type { LockSlice, RoutePolicy } from '../../config/policy.types.js';
import { int, type Check } from './adaptive/adaptive-options.js';
import { resolveBackends } from './breaker/backend-plans.js';
import { checkAdaptive } from './adaptive/adaptive-options.js';
import { BREAKER_OPTION_KEYS } from './circuit-breaker.types.js';

export const BACKEND_NAME = /^[a-z][a-z0-9-]{0,62}$/;

const CONTROL_KEYS = ['force', 'forceUntil', 'resetAt'] as const;
const KNOWN = new Set<string>([
  'mode',
  'override',
  'backend',
  'stale',
  ...BREAKER_OPTION_KEYS,
  ...CONTROL_KEYS,
]);

const OPTION_CHECKS: Record<(typeof BREAKER_OPTION_KEYS)[number], Check> = {
  timeoutMs: int(1, 600_000, ' (milliseconds)'),
  errorThresholdPercentage: (v) =>
    typeof v === 'number' && v >= 1 && v <= 99
      ? undefined
      : 'must be a number from 1 to 99 (percent)',
  volumeThreshold: (v) =>
    v === 0
      ? 'must be at least 1: with 0 the first failure of a fresh window opens the circuit'
      : int(1, 1_000_000)(v),
  rollingCountTimeoutMs: int(1_000, 3_600_000, ' (milliseconds)'),
  rollingCountBuckets: int(1, 1_000),
  resetTimeoutMs: int(100, 3_600_000, ' (milliseconds)'),
  resetJitter: (v) =>
    typeof v === 'number' && v >= 0 && v <= 0.9 ? undefined : 'must be a fraction from 0 to 0.9',
  capacity: int(1, 1_000_000),
  fairShare: (v) => (typeof v === 'boolean' ? undefined : 'must be true or false'),
  shareWeights: (v) =>
    typeof v === 'object' &&
    v !== null &&
    !Array.isArray(v) &&
    Object.values(v).every((w) => typeof w === 'number' && w > 0 && w <= 1_000)
      ? undefined
      : 'must map tiers to weights above 0 (at most 1000), e.g. { pro: 2 }',
  reclaimAfterMs: int(0, 3_600_000, ' (milliseconds)'),
  halfOpenProbes: int(1, 1_000),
  rampPercents: (v) => {
    if (!Array.isArray(v) || v.length > 20) return 'must be a list of at most 20 percentages';
    for (let i = 0; i < v.length; i++) {
      const p: unknown = v[i];
      if (typeof p !== 'number' || !(p > 0 && p < 100))
        return 'every step must be a number between 0 and 100 (exclusive)';
      if (i > 0 && p <= (v[i - 1] as number)) return 'steps must increase';
    }
    return undefined;
  },
  rampMs: int(0, 3_600_000, ' (milliseconds)'),
  adaptive: checkAdaptive,
  maxWaitMs: int(0, 60_000, ' (milliseconds)'),
  maxWaiting: int(0, 100_000),
  maxWaitingPerApp: int(1, 100_000),
  slowCallMs: int(0, 600_000, ' (milliseconds)'),
  slowCallRatio: (v) =>
    typeof v === 'number' && v > 0 && v <= 1
      ? undefined
      : 'must be a fraction above 0, at most 1 (share of slow calls)',
  minimumVolume: int(1, 1_000_000),
};

/**
 * Every problem with one circuitBreaker slice (empty = valid). Rules that
 * span policies (one owner per backend) are in validateBreakerPolicies().
 */
export function validateBreakerSlice(slice: LockSlice, path: string): string[] {
  const problems: string[] = [];
  for (const key of Object.keys(slice)) {
    if (!KNOWN.has(key))
      problems.push(
        `${path}.${key}: unknown option (known: ${[...KNOWN].filter((k) => k !== 'mode' && k !== 'override').join(', ')})`,
      );
  }
  const overrideMode = (slice.override as { mode?: string } | undefined)?.mode;
  const off = slice.mode === 'off' && (overrideMode === undefined || overrideMode === 'off');
  if (slice.backend === undefined) {
    if (!off)
      problems.push(
        `${path}.backend: required: the name of the backend this route calls, e.g. "search"`,
      );
  } else if (typeof slice.backend !== 'string' || !BACKEND_NAME.test(slice.backend)) {
    problems.push(`${path}.backend: must match ${BACKEND_NAME.source}`);
  }
  if (slice.stale !== undefined && typeof slice.stale !== 'boolean')
    problems.push(`${path}.stale: must be true or false`);
  for (const key of BREAKER_OPTION_KEYS) {
    if (slice[key] === undefined) continue;
    const problem = OPTION_CHECKS[key](slice[key]);
    if (problem) problems.push(`${path}.${key}: ${problem}`);
  }
  const bucketMs =
    Number(slice.rollingCountTimeoutMs ?? 10_000) / Number(slice.rollingCountBuckets ?? 10);
  if (
    (slice.rollingCountTimeoutMs !== undefined || slice.rollingCountBuckets !== undefined) &&
    bucketMs < 100
  ) {
    problems.push(
      `${path}.rollingCountBuckets: each bucket must last at least 100 ms (rollingCountTimeoutMs ÷ rollingCountBuckets)`,
    );
  }
  if (slice.force !== undefined && slice.force !== 'open' && slice.force !== 'closed')
    problems.push(`${path}.force: must be "open" or "closed"`);
  for (const key of ['forceUntil', 'resetAt'] as const) {
    const v = slice[key];
    if (v !== undefined && (typeof v !== 'number' || !Number.isFinite(v) || v < 0))
      problems.push(`${path}.${key}: must be epoch milliseconds`);
  }
  if (slice.forceUntil !== undefined && slice.force === undefined)
    problems.push(`${path}.forceUntil: only valid with force`);
  if ((slice.force !== undefined || slice.resetAt !== undefined) && slice.backend === undefined) {
    problems.push(
      `${path}: force and reset act on a backend's breaker; this slice names no backend`,
    );
  }
  return problems;
}

/**
 * The rule that spans policies: one policy owns a backend's options (see
 * resolveBackends()). Runs after every slice passed validateBreakerSlice().
 */
export function validateBreakerPolicies(policies: Record<string, RoutePolicy>): string[] {
  return resolveBackends(policies).problems;
}

/** Every problem of the circuitBreaker slices of a policy set: the slices, then ownership. */
export function breakerProblems(policies: Record<string, RoutePolicy>): string[] {
  const problems = Object.entries(policies).flatMap(([name, p]) => {
    const slice = p?.locks?.circuitBreaker;
    return slice ? validateBreakerSlice(slice, `policies.${name}.locks.circuitBreaker`) : [];
  });
  return problems.length > 0 ? problems : validateBreakerPolicies(policies);
}
