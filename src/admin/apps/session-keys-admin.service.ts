import { Injectable } from '@nestjs/common';
import { ProblemException } from '../../common/problem.exception.js';
import type { ClientAppView } from '../../locks/signature/apps/app.types.js';
import { parseSessionKeyId } from '../../locks/signature/session-keys/session-key-id.js';
import { lockNotInstalled } from '../admin-problems.js';
import { AuditRecorder } from '../audit/audit-recorder.service.js';
import { InstalledParts } from '../installed-parts.service.js';
import { AppsAdmin, existing } from './apps-admin.service.js';

/** A session key revoked one by one. */
export interface DeniedKey {
  keyId: string;
  /** ISO time the deny entry ends: the key's own expiry. */
  until: string;
  /** False when the key had expired already (nothing to deny). */
  denied: boolean;
}

/**
 * Revokes session keys: all of an app's keys at once (the epoch in the app's
 * definition moves to now, so it travels like any app change: stored, then
 * announced on the admin bus, cached in every instance) or one key (the
 * deny set, kept for the key's remaining life).
 */
@Injectable()
export class SessionKeysAdmin {
  constructor(
    private readonly apps: AppsAdmin,
    private readonly parts: InstalledParts,
    private readonly audit: AuditRecorder,
  ) {}

  /** Every session key of the app issued until now stops working. */
  revokeAll(actor: string, id: string): Promise<ClientAppView> {
    return this.apps.change(actor, 'app.revoke_session_keys', id, (current, now) => {
      const def = existing(current, id);
      if (!def.sessionKeys) throw noSessionKeys(id);
      const epoch = Math.max((def.sessionKeys.epoch ?? 0) + 1, Math.floor(now / 1000));
      return { ...def, sessionKeys: { ...def.sessionKeys, epoch } };
    });
  }

  /** Denies one key until it expires. */
  async deny(actor: string, id: string, keyId: unknown): Promise<DeniedKey> {
    const store = this.parts.sessionKeys() ?? throwIt(lockNotInstalled('signature'));
    const app = this.parts.requireAppRegistry().get(id);
    if (!app)
      throw new ProblemException(404, 'app_not_found', 'No such app', {
        detail: `There is no app "${id}"`,
      });
    const claims = typeof keyId === 'string' ? parseSessionKeyId(keyId) : undefined;
    if (!claims || claims.appId !== id) {
      const problem = `keyId: must be a session key id (sk1.…) of app "${id}"`;
      throw new ProblemException(400, 'validation_failed', 'Request failed validation', {
        detail: problem,
        problems: [problem],
      });
    }
    const now = Date.now();
    const left = claims.expiresAt * 1000 - now;
    if (left > 0) await store.deny(keyId as string, left);
    await this.audit.record({
      at: new Date(now).toISOString(),
      actor,
      action: 'app.deny_session_key',
      target: `app:${id}`,
      summary: `deny session key …${claims.random.slice(-6)} of ${id} (until its expiry)`,
      changes: [],
    });
    return {
      keyId: keyId as string,
      until: new Date(claims.expiresAt * 1000).toISOString(),
      denied: left > 0,
    };
  }
}

function noSessionKeys(id: string): ProblemException {
  return new ProblemException(409, 'no_session_keys', 'App has no session keys', {
    detail: `App "${id}" has no sessionKeys settings`,
  });
}

function throwIt(e: Error): never {
  throw e;
}
