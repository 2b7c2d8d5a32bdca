import { Inject, Injectable, Logger } from '@nestjs/common';
import { isDeepStrictEqual } from 'node:util';
import { LockChain } from '../../chain/lock-chain.service.js';
import { conflict, invalidChange } from '../admin-problems.js';
import { AdminMetrics } from '../admin-metrics.js';
import { AuditRecorder } from '../audit/audit-recorder.service.js';
import { diffValues } from '../audit/audit-diff.js';
import type { Policies } from './policy-edits.js';
import { POLICY_STORE, PolicyStore } from './policy-store.js';
import { PolicySync } from './policy-sync.service.js';

/** A change of the policy set requested through the admin API. */
export interface PolicyChange {
  /** Token id of the admin. */
  actor: string;
  /** Audit action and metrics label, e.g. `policy.lock_mode`. */
  action: string;
  /** Audit target, e.g. `search/rateLimit`. */
  target: string;
  summary: string;
  /** Builds the candidate set from a copy of the active one; may throw a ProblemException. */
  edit(policies: Policies): Policies;
}

export interface PolicyChangeResult {
  /** Version in force after the call. */
  version: number;
  /** False when the edit changed nothing (no new version). */
  changed: boolean;
}

/** Commit attempts before a 409 when other changes keep winning the race. */
const MAX_ATTEMPTS = 5;

/**
 * Applies admin changes to the route policies: edit the active set →
 * validate with every installed lock → store as a new version (optimistic
 * concurrency on the active version) → apply here → audit. An invalid
 * change is a 400 naming every problem, and nothing is stored.
 */
@Injectable()
export class PolicyChanges {
  private readonly logger = new Logger('PolicyChanges');

  constructor(
    @Inject(POLICY_STORE) private readonly store: PolicyStore,
    private readonly chain: LockChain,
    private readonly sync: PolicySync,
    private readonly audit: AuditRecorder,
    private readonly metrics: AdminMetrics,
  ) {}

  apply(change: PolicyChange): Promise<PolicyChangeResult> {
    return this.sync.serial(async () => {
      for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
        const base = await this.base();
        const next = change.edit(structuredClone(base.policies));
        const problems = this.chain.validate(next);
        if (problems.length > 0) {
          this.metrics.changes.inc({ action: change.action, result: 'rejected' });
          throw invalidChange(problems);
        }
        if (isDeepStrictEqual(next, base.policies)) {
          this.metrics.changes.inc({ action: change.action, result: 'unchanged' });
          return { version: this.chain.current().version, changed: false };
        }
        if (base.version === 0) {
          await this.seed();
          continue;
        }
        const at = new Date().toISOString();
        const res = await this.store.commit(base.version, {
          at,
          actor: change.actor,
          summary: change.summary,
          policies: next,
        });
        if (!res.ok) continue;
        this.chain.replace(next, res.version, at);
        this.metrics.changes.inc({ action: change.action, result: 'applied' });
        await this.audit.record({
          at,
          actor: change.actor,
          action: change.action,
          target: change.target,
          summary: change.summary,
          version: res.version,
          changes: diffValues(base.policies, next, 'policies'),
        });
        return { version: res.version, changed: true };
      }
      throw conflict(`other changes kept winning; ${MAX_ATTEMPTS} attempts failed, try again`);
    });
  }

  /** The active version and its policies (version 0 = nothing stored yet: the set this instance runs). */
  private async base(): Promise<{ version: number; policies: Policies }> {
    const active = await this.store.activeVersion();
    const current = this.chain.current();
    if (active === 0 || active === current.version)
      return { version: active, policies: current.policies };
    const stored = await this.store.get(active);
    if (!stored) throw conflict(`active policy version ${active} is not readable; try again`);
    return stored;
  }

  /** Stores the set this instance runs as version 1, so the first change can be rolled back. */
  private async seed(): Promise<void> {
    const { policies } = this.chain.current();
    const res = await this.store.commit(0, {
      at: new Date().toISOString(),
      actor: 'system',
      summary: 'policy set in force before the first admin change',
      policies,
    });
    if (res.ok) this.logger.log('stored the running policy set as version 1');
  }
}
