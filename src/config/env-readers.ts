import type { RedisNode } from './config.types.js';

/** The environment the configuration is read from. */
export type Env = Record<string, string | undefined>;

/** Collects every problem instead of stopping at the first one. */
export class Problems {
  readonly list: string[] = [];
  add(message: string): void {
    this.list.push(message);
  }
}

/** An integer setting within [min, max]; the fallback when unset or invalid (and a problem when invalid). */
export function int(
  env: Env,
  name: string,
  fallback: number,
  p: Problems,
  min = 0,
  max = Number.MAX_SAFE_INTEGER,
): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) {
    p.add(`${name} must be an integer between ${min} and ${max} (got "${raw}")`);
    return fallback;
  }
  return n;
}

/** One of `allowed` (case-insensitive); the fallback when unset or invalid. */
export function oneOf<T extends string>(
  env: Env,
  name: string,
  allowed: readonly T[],
  fallback: T,
  p: Problems,
): T {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const v = raw.toLowerCase() as T;
  if (!allowed.includes(v)) {
    p.add(`${name} must be one of ${allowed.join(', ')} (got "${raw}")`);
    return fallback;
  }
  return v;
}

/** true/1/on/yes or false/0/off/no; the fallback when unset or invalid. */
export function bool(env: Env, name: string, fallback: boolean, p: Problems): boolean {
  const raw = env[name]?.trim().toLowerCase();
  if (raw === undefined || raw === '') return fallback;
  if (['true', '1', 'on', 'yes'].includes(raw)) return true;
  if (['false', '0', 'off', 'no'].includes(raw)) return false;
  p.add(`${name} must be true or false (got "${env[name]}")`);
  return fallback;
}

/** A comma-separated list, trimmed, without empty items. */
export function list(env: Env, name: string): string[] {
  const raw = env[name];
  if (!raw) return [];
  return raw
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

/** A URL with one of `protocols`; undefined when unset or invalid. */
export function url(
  env: Env,
  name: string,
  protocols: readonly string[],
  p: Problems,
): string | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  try {
    const u = new URL(raw);
    if (!protocols.includes(u.protocol)) {
      p.add(`${name} must use ${protocols.join(' or ')} (got "${u.protocol}")`);
      return undefined;
    }
    return raw;
  } catch {
    p.add(`${name} is not a valid URL`);
    return undefined;
  }
}

/** A comma-separated list of host:port. */
export function hostPorts(env: Env, name: string, p: Problems): RedisNode[] {
  return list(env, name).flatMap((entry) => {
    const m = /^([^:]+):(\d{1,5})$/.exec(entry);
    if (!m || Number(m[2]) > 65535) {
      p.add(`${name} entries must be host:port (got "${entry}")`);
      return [];
    }
    return [{ host: m[1]!, port: Number(m[2]) }];
  });
}
