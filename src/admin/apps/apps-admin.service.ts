import { Inject, Injectable } from '@nestjs/common';
import { LockChain } from '../../chain/lock-chain.service.js';
import { ProblemException } from '../../common/problem.exception.js';
import { knownTiers } from '../../locks/rate-limit/rate-limit.admin.js';
import {
  MAX_ACTIVE_SECRETS,
  parseAppDefinition,
} from '../../locks/signature/apps/app-definition.js';
import type { ClientAppView } from '../../locks/signature/apps/app.types.js';
import { conflict } from '../admin-problems.js';
import { AdminMetrics } from '../admin-metrics.js';
import { diffValues } from '../audit/audit-diff.js';
import { AuditRecorder } from '../audit/audit-recorder.service.js';
import { InstalledParts } from '../installed-parts.service.js';
import { definitionOf, newSecret, nextSecretId, redacted } from './app-secrets.js';
import { APP_STORE, AppDefinition, AppStore } from './app-store.js';
import { AppsSync } from './apps-sync.service.js';

/** A secret shown once, in the answer that created it. */
export interface OneTimeSecret {
  id: string;
  value: string;
}

type Edit = (current: AppDefinition | undefined, now: number) => AppDefinition;

const MAX_ATTEMPTS = 5;

/**
 * Changes API client apps: stored in the shared AppStore (so every instance
 * follows), applied to the signature lock's AppRegistry, audited without
 * secret values. A generated secret leaves the service once, in the answer
 * that created it.
 */
@Injectable()
export class AppsAdmin {
  constructor(
    @Inject(APP_STORE) private readonly store: AppStore,
    private readonly parts: InstalledParts,
    private readonly sync: AppsSync,
    private readonly audit: AuditRecorder,
    private readonly metrics: AdminMetrics,
    private readonly chain: LockChain,
  ) {}

  list(): ClientAppView[] {
    return this.parts.requireAppRegistry().list();
  }

  async create(
    actor: string,
    input: { id: string; tier: string; skewSeconds?: number; debug?: boolean },
  ): Promise<{ app: ClientAppView; secret: OneTimeSecret }> {
    const tiers = knownTiers(this.chain.current().policies);
    if (!tiers.includes(input.tier)) {
      const problem = `tier must be one of ${tiers.join(', ')} (the tiers the rate-limit policies know)`;
      throw new ProblemException(400, 'validation_failed', 'Request failed validation', {
        detail: problem,
        problems: [problem],
      });
    }
    const secret = newSecret('k1');
    const app = await this.change(actor, 'app.create', input.id, (current) => {
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
    });
    return { app, secret: { id: secret.id, value: secret.secret } };
  }

  setActive(actor: string, id: string, active: boolean): Promise<ClientAppView> {
    return this.change(actor, active ? 'app.activate' : 'app.deactivate', id, (current) => ({
      ...existing(current, id),
      active,
    }));
  }

  /** Adds a new secret (older ones keep working until retired). */
  async rotate(actor: string, id: string): Promise<{ app: ClientAppView; secret: OneTimeSecret }> {
    let secret: OneTimeSecret | undefined;
    const app = await this.change(actor, 'app.rotate_secret', id, (current, now) => {
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
      secret = { id: s.id, value: s.secret };
      return { ...def, secrets: [...def.secrets, s] };
    });
    return { app, secret: secret! };
  }

  /** Removes a secret now (its material is deleted), or ends it at `notAfter` (epoch ms). */
  retire(actor: string, id: string, secretId: string, notAfter?: number): Promise<ClientAppView> {
    return this.change(actor, 'app.retire_secret', id, (current, now) => {
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
    });
  }

  /** Read → edit → validate → store (if unchanged meanwhile) → apply here → audit. */
  change(actor: string, action: string, id: string, edit: Edit): Promise<ClientAppView> {
    const registry = this.parts.requireAppRegistry();
    return this.sync.serial(async () => {
      for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
        const stored = await this.store.get(id);
        const known = registry.get(id);
        const current = stored?.definition ?? (known ? definitionOf(known) : undefined);
        const now = Date.now();
        const next = edit(current, now);
        const { problems } = parseAppDefinition(next, `apps.${id}`, now);
        if (problems.length > 0) {
          this.metrics.changes.inc({ action, result: 'rejected' });
          throw new ProblemException(400, 'invalid_app', 'App change rejected', {
            problems,
            detail: problems.join('; '),
          });
        }
        const res = await this.store.put(stored?.rev ?? 0, next);
        if (!res.ok) continue;
        const view = registry.upsert(next);
        this.sync.markApplied(id, res.rev);
        this.metrics.changes.inc({ action, result: 'applied' });
        await this.audit.record({
          at: new Date(now).toISOString(),
          actor,
          action,
          target: `app:${id}`,
          summary: `${action.replace('app.', '')} ${id}`,
          changes: diffValues(redacted(current), redacted(next), `apps.${id}`),
        });
        return view;
      }
      throw conflict(`app "${id}" kept changing; try again`);
    });
  }
}

export function existing(def: AppDefinition | undefined, id: string): AppDefinition {
  if (!def)
    throw new ProblemException(404, 'app_not_found', 'No such app', {
      detail: `There is no app "${id}"`,
    });
  return structuredClone(def);
}
