import { isIP } from 'node:net';

/** Where and how one app is told that its jobs finished (`telegram.outbound.callbacks.apps.<app>`). */
export interface AppCallback {
  /** https URL (http only to a host of `allowHosts`). */
  url: string;
  /** HMAC-SHA256 key of the signature (read from `secretEnv`; never shown). */
  secret: string;
}

/** CONFIG_FILE `telegram.outbound.callbacks`. */
export interface CallbackSettings {
  apps: Record<string, AppCallback>;
  /** Hosts a callback may reach over http or at a loopback/private address (tests, an internal receiver). */
  allowHosts: string[];
  /** Tries per event before it is dropped (counted). */
  maxAttempts: number;
  /** Backoff after a failed try: base × 2^(tries−1), capped at 60 s (milliseconds). */
  backoffBaseMs: number;
  /** Milliseconds one POST may take. */
  timeoutMs: number;
}

export const CALLBACK_DEFAULTS: CallbackSettings = {
  apps: {},
  allowHosts: [],
  maxAttempts: 6,
  backoffBaseMs: 1_000,
  timeoutMs: 5_000,
};

const APP_ID = /^[A-Za-z0-9._-]{1,64}$/;
const KEYS = ['apps', 'allowHosts', 'maxAttempts', 'backoffBaseMs', 'timeoutMs'];

/** A host that names this machine or a private network by itself (an IP literal or localhost). */
export function privateHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (h === 'localhost' || h.endsWith('.localhost')) return true;
  if (isIP(h) === 0) return false;
  return privateAddress(h);
}

/** Loopback, private, link-local, unspecified or CGNAT addresses (v4 and v6, v4-mapped too). */
export function privateAddress(ip: string): boolean {
  const a = ip.toLowerCase().replace(/^::ffff:/, '');
  if (isIP(a) === 4) {
    const [x, y] = a.split('.').map(Number) as [number, number];
    return (
      x === 0 ||
      x === 10 ||
      x === 127 ||
      (x === 100 && y >= 64 && y < 128) ||
      (x === 169 && y === 254) ||
      (x === 172 && y >= 16 && y < 32) ||
      (x === 192 && y === 168)
    );
  }
  return a === '::' || a === '::1' || /^f[cd]/.test(a) || /^fe[89ab]/.test(a);
}

/** Parses `telegram.outbound.callbacks`; pushes every problem to `p` (never a secret). */
export function callbackSettings(
  raw: unknown,
  at: string,
  p: string[],
  env: Record<string, string | undefined>,
): CallbackSettings {
  const out = structuredClone(CALLBACK_DEFAULTS);
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    p.push(`${at} must be an object`);
    return out;
  }
  const o = raw as Record<string, unknown>;
  for (const k of Object.keys(o))
    if (!KEYS.includes(k)) p.push(`${at}.${k} is not a known option (${KEYS.join(', ')})`);
  if (o.allowHosts !== undefined) {
    if (Array.isArray(o.allowHosts) && o.allowHosts.every((h) => typeof h === 'string'))
      out.allowHosts = (o.allowHosts as string[]).map((h) => h.toLowerCase());
    else p.push(`${at}.allowHosts must be a list of host names`);
  }
  for (const k of ['maxAttempts', 'backoffBaseMs', 'timeoutMs'] as const)
    if (o[k] !== undefined) {
      if (Number.isInteger(o[k]) && (o[k] as number) >= 1 && (o[k] as number) <= 600_000)
        out[k] = o[k] as number;
      else p.push(`${at}.${k} must be an integer ≥ 1`);
    }
  const apps = (o.apps ?? {}) as Record<string, unknown>;
  for (const [app, v] of Object.entries(apps)) {
    const c = v as { url?: unknown; secretEnv?: unknown } | null;
    const where = `${at}.apps.${app}`;
    // `-` is the namespace of unsigned requests: anyone could fill it.
    if (!APP_ID.test(app) || app === '-') p.push(`${where}: not an app id`);
    let url: URL | undefined;
    try {
      url = new URL(String(c?.url));
    } catch {
      p.push(`${where}.url must be a URL`);
      continue;
    }
    const allowed = out.allowHosts.includes(url.hostname.toLowerCase().replace(/^\[|\]$/g, ''));
    if (url.protocol !== 'https:' && !(url.protocol === 'http:' && allowed))
      p.push(`${where}.url must be https (http only to a host of allowHosts)`);
    else if (url.username || url.password) p.push(`${where}.url must not carry credentials`);
    else if (privateHost(url.hostname) && !allowed)
      p.push(`${where}.url names a loopback or private host (list it in allowHosts to allow it)`);
    const secret = typeof c?.secretEnv === 'string' ? env[c.secretEnv]?.trim() : undefined;
    if (!secret || secret.length < 16)
      p.push(`${where}.secretEnv must name an environment variable of at least 16 characters`);
    else if (url) out.apps[app] = { url: url.href, secret };
  }
  return out;
}
