import { Inject, Injectable } from '@nestjs/common';
import { LockChain } from '../../chain/lock-chain.service.js';
import { ProblemException } from '../../common/problem.exception.js';
import { knownTiers } from '../../locks/rate-limit/rate-limit.admin.js';
import { parseAppDefinition } from '../../locks/signature/apps/app-definition.js';
import type { ClientAppView } from '../../locks/signature/apps/app.types.js';
import { conflict } from '../admin-problems.js';
import { AdminMetrics } from '../admin-metrics.js';
import { diffValues } from '../audit/audit-diff.js';
import { AuditRecorder } from '../audit/audit-recorder.service.js';
import { InstalledParts } from '../installed-parts.service.js';
import {
  type Edit,
  type OneTimeSecret,
  createEdit,
  existing,
  retireEdit,
  rotateEdit,
} from './app-edits.js';
import { definitionOf, newSecret, redacted } from './app-secrets.js';
import { APP_STORE, AppStore } from './app-store.js';
import { AppsSync } from './apps-sync.service.js';

// The edits live in app-edits.ts; re-exported for the controller and the session keys.
export { type OneTimeSecret, existing } from './app-edits.js';

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
    const app = await this.change(actor, 'app.create', input.id, createEdit(input, secret));
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
    const app = await this.change(
      actor,
      'app.rotate_secret',
      id,
      rotateEdit(id, (s) => (secret = s)),
    );
    return { app, secret: secret! };
  }

  /** Removes a secret now (its material is deleted), or ends it at `notAfter` (epoch ms). */
  retire(actor: string, id: string, secretId: string, notAfter?: number): Promise<ClientAppView> {
    return this.change(actor, 'app.retire_secret', id, retireEdit(id, secretId, notAfter));
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
