import { isRecord } from '../../../common/is-record.js';
import type { AppSessionKeys } from '../apps/app.types.js';
import { MAX_SCOPE_POLICIES, POLICY_NAME } from './session-key-id.js';

export type { AppSessionKeys };

export const DEFAULT_MAX_TTL_SECONDS = 900;
/** Default `refreshGrace`: a browser refreshes its key within minutes of the 401 that tells it to. */
export const DEFAULT_REFRESH_GRACE_SECONDS = 300;
/** Upper bound of `refreshGrace`: past an hour, an expired key is no longer a refresh. */
export const LIMIT_REFRESH_GRACE_SECONDS = 3600;
/** Upper bound of any app's `maxTtl`: session keys are short-lived by design. */
export const LIMIT_MAX_TTL_SECONDS = 24 * 3600;
/** Session keys may never call the policy that mints them. */
export const MINT_POLICY = 'session-keys';

const DURATION = /^([1-9][0-9]{0,5})(s|m|h)?$/;

/** `90`, `'90s'`, `'15m'`, `'1h'` → seconds; undefined when not a duration. */
export function parseTtl(v: unknown): number | undefined {
  if (typeof v === 'number') return Number.isInteger(v) && v > 0 ? v : undefined;
  if (typeof v !== 'string') return undefined;
  const m = DURATION.exec(v.trim());
  if (!m) return undefined;
  return Number(m[1]) * (m[2] === 'h' ? 3600 : m[2] === 'm' ? 60 : 1);
}

/** Validates an app's `sessionKeys` section; every problem is prefixed with `path`. */
export function parseAppSessionKeys(
  raw: unknown,
  path: string,
): { value?: AppSessionKeys; problems: string[] } {
  if (!isRecord(raw))
    return { problems: [`${path}: must be an object {maxTtl?, maxScope, epoch?, refreshGrace?}`] };
  const problems: string[] = [];
  for (const k of Object.keys(raw))
    if (!['maxTtl', 'maxScope', 'epoch', 'refreshGrace'].includes(k))
      problems.push(`${path}.${k}: unknown field (known: maxTtl, maxScope, epoch, refreshGrace)`);
  const ttl = raw.maxTtl === undefined ? DEFAULT_MAX_TTL_SECONDS : parseTtl(raw.maxTtl);
  if (ttl === undefined || ttl > LIMIT_MAX_TTL_SECONDS)
    problems.push(
      `${path}.maxTtl: must be a duration such as 900, '90s', '15m', '1h' (at most 24h)`,
    );
  const scope = raw.maxScope;
  if (
    !Array.isArray(scope) ||
    scope.length === 0 ||
    scope.length > MAX_SCOPE_POLICIES ||
    !scope.every((p) => typeof p === 'string' && POLICY_NAME.test(p))
  )
    problems.push(
      `${path}.maxScope: must be a list of 1-${MAX_SCOPE_POLICIES} policy names (e.g. [search, inference])`,
    );
  else if (scope.includes(MINT_POLICY))
    problems.push(`${path}.maxScope: "${MINT_POLICY}" cannot be in a session key's scope`);
  const grace =
    raw.refreshGrace === undefined
      ? DEFAULT_REFRESH_GRACE_SECONDS
      : raw.refreshGrace === 0
        ? 0
        : parseTtl(raw.refreshGrace);
  if (grace === undefined || grace > LIMIT_REFRESH_GRACE_SECONDS)
    problems.push(
      `${path}.refreshGrace: must be 0 or a duration such as 300, '90s', '5m' (at most 1h)`,
    );
  const epoch = raw.epoch ?? 0;
  if (!Number.isInteger(epoch) || (epoch as number) < 0)
    problems.push(`${path}.epoch: must be an integer ≥ 0 (seconds since the epoch)`);
  if (problems.length > 0) return { problems };
  return {
    value: {
      maxTtlSeconds: ttl!,
      maxScope: [...new Set(scope as string[])],
      epoch: epoch as number,
      refreshGraceSeconds: grace!,
    },
    problems,
  };
}
