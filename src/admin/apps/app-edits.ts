import { ProblemException } from '../../common/problem.exception.js';
import { MAX_ACTIVE_SECRETS } from '../../locks/signature/apps/app-definition.js';
import { newSecret, nextSecretId } from './app-secrets.js';
import type { AppDefinition } from './app-store.js';

/**
 * The edits of an app's definition (AppsAdmin.change runs them, then validates and stores the result):
 * create, rotate a secret, retire a secret. Pure, but for the new secret's random material.
 */

/** A secret shown once, in the answer that created it. */
export interface OneTimeSecret {
  id: string;
  value: string;
}

export type Edit = (current: AppDefinition | undefined, now: number) => AppDefinition;

/** A new app with one fresh secret `k1`: refused when the id is taken. */
export function createEdit(
  input: { id: string; tier: string; skewSeconds?: number; debug?: boolean },
  secret: AppDefinition['secrets'][number],
): Edit {
  return (current) => {
    if (current)
      throw new ProblemException(409, 'app_exists', 'App already exists', {
        detail: `An app "${input.id}" already exists`,
      });
    const def: AppDefinition = {
      id: input.id,
      tier: input.tier,
      active: true,
      debug: input.debug ?? false,
      secrets: [secret],
    };
    if (input.skewSeconds !== undefined) def.skewSeconds = input.skewSeconds;
    return def;
  };
}

/** A new secret beside the live ones (at most MAX_ACTIVE_SECRETS); `shown` receives it, to show once. */
export function rotateEdit(id: string, shown: (secret: OneTimeSecret) => void): Edit {
  return (current, now) => {
    const def = existing(current, id);
    const live = def.secrets.filter(
      (s) => s.notAfter === undefined || Date.parse(s.notAfter) > now,
    );
    if (live.length >= MAX_ACTIVE_SECRETS) {
      throw new ProblemException(409, 'too_many_secrets', 'Too many active secrets', {
        detail: `App "${id}" already has ${live.length} active secrets (at most ${MAX_ACTIVE_SECRETS}); retire one first`,
      });
    }
    const s = newSecret(nextSecretId(def.secrets));
    shown({ id: s.id, value: s.secret });
    return { ...def, secrets: [...def.secrets, s] };
  };
}

/** A secret removed now, or ended at `notAfter` (epoch ms): refused when no working secret would be left. */
export function retireEdit(id: string, secretId: string, notAfter?: number): Edit {
  return (current, now) => {
    const def = existing(current, id);
    if (!def.secrets.some((s) => s.id === secretId)) {
      throw new ProblemException(404, 'secret_not_found', 'No such secret', {
        detail: `App "${id}" has no secret "${secretId}"`,
      });
    }
    const secrets =
      notAfter === undefined
        ? def.secrets.filter((s) => s.id !== secretId)
        : def.secrets.map((s) =>
            s.id === secretId ? { ...s, notAfter: new Date(notAfter).toISOString() } : s,
          );
    if (!secrets.some((s) => s.notAfter === undefined || Date.parse(s.notAfter) > now)) {
      throw new ProblemException(409, 'last_secret', 'Last active secret', {
        detail: `Retiring "${secretId}" would leave app "${id}" without a working secret; rotate first, or deactivate the app`,
      });
    }
    return { ...def, secrets };
  };
}

export function existing(def: AppDefinition | undefined, id: string): AppDefinition {
  if (!def)
    throw new ProblemException(404, 'app_not_found', 'No such app', {
      detail: `There is no app "${id}"`,
    });
  return structuredClone(def);
}
