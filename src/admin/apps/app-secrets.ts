import { randomBytes } from 'node:crypto';
import type { ClientApp } from '../../locks/signature/apps/app.types.js';
import type { AppDefinition, AppSecretDefinition } from './app-store.js';

/** A new signing secret: 32 random bytes, base64url (43 characters). */
export function newSecret(id: string): AppSecretDefinition {
  return { id, secret: randomBytes(32).toString('base64url') };
}

/** `k<n+1>` after the highest `k<n>` in use (ids are never reused within an app). */
export function nextSecretId(secrets: readonly { id: string }[]): string {
  const max = Math.max(0, ...secrets.map((s) => Number(/^k(\d{1,9})$/.exec(s.id)?.[1] ?? 0)));
  return `k${max + 1}`;
}

/** The definition of an app the registry loaded from APPS_FILE (to change it, it must be stored with its secrets). */
export function definitionOf(app: ClientApp): AppDefinition {
  const def: AppDefinition = {
    id: app.id,
    tier: app.tier,
    active: app.active,
    debug: app.debug,
    secrets: app.secrets.map((s) => ({
      id: s.id,
      secret: s.key.export().toString('utf8'),
      ...(s.notAfter !== undefined ? { notAfter: new Date(s.notAfter).toISOString() } : {}),
    })),
  };
  if (app.skewSeconds !== undefined) def.skewSeconds = app.skewSeconds;
  const sk = app.sessionKeys;
  if (sk)
    def.sessionKeys = {
      maxTtl: sk.maxTtlSeconds,
      maxScope: [...sk.maxScope],
      epoch: sk.epoch,
      refreshGrace: sk.refreshGraceSeconds,
    };
  return def;
}

/** An app without secret material, for audit diffs: `keys` lists secret ids and their end. */
export function redacted(def: AppDefinition | undefined): Record<string, unknown> | undefined {
  if (!def) return undefined;
  const { secrets, ...rest } = def;
  return {
    ...rest,
    keys: Object.fromEntries(secrets.map((s) => [s.id, { notAfter: s.notAfter ?? null }])),
  };
}
