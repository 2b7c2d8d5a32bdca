import type { RampartConfig } from './config.types.js';

const SECRET_KEY = /(secret|token|password|apikey|api_key|authorization|credential|sha256)/i;

/** Masks the password part of a URL: `redis://:s3cret@h:6379` → `redis://:***@h:6379`. */
export function maskUrl(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  try {
    const u = new URL(raw);
    if (u.password) u.password = '***';
    if (u.username && !u.password) u.username = '***';
    return u.toString();
  } catch {
    return '***';
  }
}

/** Deep copy of any value with every secret-looking field replaced by "***". */
export function maskSecrets(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(maskSecrets);
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      if (SECRET_KEY.test(k) && v !== undefined && v !== null && typeof v !== 'object')
        out[k] = '***';
      // A list of secrets (e.g. a bot's `secretTokens: [current, previous]`): each one masked.
      else if (SECRET_KEY.test(k) && Array.isArray(v) && v.every((x) => typeof x !== 'object'))
        out[k] = v.map(() => '***');
      else if (/url$/i.test(k) && typeof v === 'string') out[k] = maskUrl(v);
      else out[k] = maskSecrets(v);
    }
    return out;
  }
  return value;
}

/** The configuration as it may be printed or returned by the admin API. */
export function printableConfig(config: RampartConfig): unknown {
  return maskSecrets(config);
}
