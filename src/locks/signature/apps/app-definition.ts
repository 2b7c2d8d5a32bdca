import { createSecretKey } from 'node:crypto';
import { isRecord } from '../../../common/is-record.js';
import { MAX_SKEW_SECONDS } from '../signature.types.js';
import { ID_PATTERN, type ClientApp } from './app.types.js';
import { parseAppSessionKeys } from '../session-keys/app-session-keys.js';

/** Most secrets an app may have active at once (rotation: add new → clients switch → retire old). */
export const MAX_ACTIVE_SECRETS = 3;
/** Shortest secret, in UTF-8 bytes. */
export const MIN_SECRET_BYTES = 32;
const TIER_PATTERN = /^[a-z][a-z0-9_-]{0,31}$/;
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

/**
 * Validates one app definition as written in APPS_FILE (or sent by the admin
 * API) and builds the runtime app. Every problem is listed (prefixed with
 * `path`); a secret's value never appears in a message.
 */
export function parseAppDefinition(
  raw: unknown,
  path: string,
  now: number,
): { app?: ClientApp; problems: string[] } {
  const problems: string[] = [];
  if (!isRecord(raw)) return { problems: [`${path}: must be an object`] };
  const known = new Set(['id', 'tier', 'active', 'secrets', 'skewSeconds', 'debug', 'sessionKeys']);
  for (const k of Object.keys(raw))
    if (!known.has(k))
      problems.push(`${path}.${k}: unknown field (known: ${[...known].join(', ')})`);
  const { id, tier, active, secrets, skewSeconds, debug } = raw;
  if (typeof id !== 'string' || !ID_PATTERN.test(id))
    problems.push(`${path}.id: must be 1-64 characters of [A-Za-z0-9_.-]`);
  if (typeof tier !== 'string' || !TIER_PATTERN.test(tier))
    problems.push(`${path}.tier: must match [a-z][a-z0-9_-]{0,31} (e.g. free, pro)`);
  if (active !== undefined && typeof active !== 'boolean')
    problems.push(`${path}.active: must be true or false`);
  if (debug !== undefined && typeof debug !== 'boolean')
    problems.push(`${path}.debug: must be true or false`);
  if (
    skewSeconds !== undefined &&
    (!Number.isInteger(skewSeconds) ||
      (skewSeconds as number) < 1 ||
      (skewSeconds as number) > MAX_SKEW_SECONDS)
  ) {
    problems.push(`${path}.skewSeconds: must be an integer between 1 and ${MAX_SKEW_SECONDS}`);
  }
  const app: ClientApp = {
    id: String(id),
    tier: String(tier),
    active: active !== false,
    secrets: [],
    debug: debug === true,
    ...(typeof skewSeconds === 'number' ? { skewSeconds } : {}),
  };
  if (raw.sessionKeys !== undefined) {
    const sk = parseAppSessionKeys(raw.sessionKeys, `${path}.sessionKeys`);
    problems.push(...sk.problems);
    if (sk.value) app.sessionKeys = sk.value;
  }
  if (!Array.isArray(secrets) || secrets.length === 0) {
    problems.push(`${path}.secrets: must be a non-empty list of {id, secret, notAfter?}`);
  } else {
    const ids = new Set<string>();
    secrets.forEach((s, i) => {
      const at = `${path}.secrets[${i}]`;
      if (!isRecord(s)) {
        problems.push(`${at}: must be an object {id, secret, notAfter?}`);
        return;
      }
      for (const k of Object.keys(s))
        if (!['id', 'secret', 'notAfter'].includes(k)) problems.push(`${at}.${k}: unknown field`);
      if (typeof s.id !== 'string' || !ID_PATTERN.test(s.id))
        problems.push(`${at}.id: must be 1-64 characters of [A-Za-z0-9_.-]`);
      else if (ids.has(s.id)) problems.push(`${at}.id: "${s.id}" is used twice in this app`);
      else ids.add(s.id);
      const secretOk =
        typeof s.secret === 'string' && Buffer.byteLength(s.secret, 'utf8') >= MIN_SECRET_BYTES;
      if (!secretOk)
        problems.push(`${at}.secret: must be a string of at least ${MIN_SECRET_BYTES} bytes`);
      else if ((s.secret as string).trim() !== s.secret)
        problems.push(`${at}.secret: must not start or end with white space`);
      let notAfter: number | undefined;
      if (s.notAfter !== undefined) {
        const v = s.notAfter instanceof Date ? s.notAfter.toISOString() : s.notAfter;
        notAfter = typeof v === 'string' && ISO_TIME.test(v) ? Date.parse(v) : NaN;
        if (!Number.isFinite(notAfter))
          problems.push(
            `${at}.notAfter: must be an ISO 8601 time with a zone, e.g. 2030-01-31T00:00:00Z`,
          );
      }
      if (secretOk && typeof s.id === 'string') {
        app.secrets.push({
          id: s.id,
          key: createSecretKey(Buffer.from(s.secret as string, 'utf8')),
          ...(notAfter !== undefined && Number.isFinite(notAfter) ? { notAfter } : {}),
        });
      }
    });
    const activeCount = app.secrets.filter(
      (s) => s.notAfter === undefined || now < s.notAfter,
    ).length;
    if (activeCount > MAX_ACTIVE_SECRETS)
      problems.push(
        `${path}.secrets: at most ${MAX_ACTIVE_SECRETS} secrets may be active at once (found ${activeCount}); give old ones a past notAfter or remove them`,
      );
  }
  return problems.length > 0 ? { problems } : { app, problems };
}
