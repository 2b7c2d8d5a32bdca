import type { LockSlice, RoutePolicy } from './policy.types.js';
import { LOCK_MODES } from './policy.types.js';
import { isRecord } from '../common/is-record.js';
import type { Problems } from './env-readers.js';

/** Merges policies from the config file over the defaults: per policy, per lock slice, option by option. */
export function mergePolicies(
  base: Record<string, RoutePolicy>,
  override: unknown,
  p: Problems,
): Record<string, RoutePolicy> {
  const out: Record<string, RoutePolicy> = structuredClone(base);
  if (override === undefined) return out;
  if (!isRecord(override)) {
    p.add('CONFIG_FILE: "policies" must be a map of policy name to policy');
    return out;
  }
  for (const [name, raw] of Object.entries(override)) {
    if (!/^[a-z][a-z0-9-]{0,62}$/.test(name)) {
      p.add(`CONFIG_FILE: policy name "${name}" must match [a-z][a-z0-9-]*`);
      continue;
    }
    if (!isRecord(raw)) {
      p.add(`CONFIG_FILE: policy "${name}" must be an object`);
      continue;
    }
    const target: RoutePolicy = out[name] ?? { locks: {} };
    if (raw.description !== undefined) target.description = String(raw.description);
    if (raw.critical !== undefined) {
      if (typeof raw.critical !== 'boolean')
        p.add(`CONFIG_FILE: policies.${name}.critical must be true or false`);
      else target.critical = raw.critical;
    }
    if (raw.locks !== undefined) {
      if (!isRecord(raw.locks)) {
        p.add(`CONFIG_FILE: policies.${name}.locks must be a map of lock name to options`);
      } else {
        for (const [lock, slice] of Object.entries(raw.locks)) {
          if (!isRecord(slice)) {
            p.add(`CONFIG_FILE: policies.${name}.locks.${lock} must be an object`);
            continue;
          }
          const merged = { ...(target.locks[lock] ?? { mode: 'off' }), ...slice } as LockSlice;
          if (!LOCK_MODES.includes(merged.mode)) {
            p.add(
              `CONFIG_FILE: policies.${name}.locks.${lock}.mode must be one of ${LOCK_MODES.join(', ')}`,
            );
          }
          target.locks[lock] = merged;
        }
      }
    }
    out[name] = target;
  }
  return out;
}
