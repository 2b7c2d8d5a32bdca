import { Injectable } from '@nestjs/common';
import { ProblemException } from '../../../common/problem.exception.js';
import { isUnavailable } from '../../../redis/redis.errors.js';
import type { BloomAdminPort, BloomFilterStatus } from '../cache-shield.admin.js';
import { ShieldProblem, shieldProblem } from '../cache-shield.problems.js';
import { filterStatus } from './bloom-status.js';
import { BloomFilters } from './replicas/bloom-filters.service.js';

export type { BuildView } from './bloom-status.js';

/** The cache shield's BloomAdminPort: status, rebuild and rollback of the filters, every instance following through the store. */
@Injectable()
export class BloomAdmin implements BloomAdminPort {
  constructor(private readonly filters: BloomFilters) {}

  async status(): Promise<BloomFilterStatus[]> {
    return filterStatus(this.filters);
  }

  async rebuild(filter?: string): Promise<BloomFilterStatus[]> {
    await Promise.all(
      this.names(filter).map((name) =>
        this.guard(this.filters.rebuild(name, 'admin rebuild', { admin: true })),
      ),
    );
    return this.status();
  }

  /** Every filter named (all when none) is checked first: one without the build asked for stops the whole rollback. */
  async rollback(filter?: string, version?: number): Promise<BloomFilterStatus[]> {
    const names = this.names(filter);
    const pointers = await this.guard(
      Promise.all(names.map((name) => this.filters.store.pointer(name))),
    );
    names.forEach((name, i) => {
      const p = pointers[i]!;
      if (version !== undefined && version === p.active) return;
      if (
        p.active === undefined ||
        p.previous === undefined ||
        (version !== undefined && version !== p.previous)
      ) {
        throw shieldProblem(
          ShieldProblem.VersionNotFound,
          `${name} keeps its active build${p.active ? ` (v${p.active})` : ''} and the previous one${p.previous ? ` (v${p.previous})` : ''} only`,
        );
      }
    });
    for (const [i, name] of names.entries()) {
      const p = pointers[i]!;
      if (version === undefined || version !== p.active)
        await this.guard(this.rollbackOne(name, { active: p.active!, previous: p.previous! }));
    }
    return this.status();
  }

  private async rollbackOne(
    name: string,
    expect: { active: number; previous: number },
  ): Promise<void> {
    const { store, settings } = this.filters;
    const res = await store.rollback(name, expect, settings.bloomTtlDays * 86_400_000);
    if (!res.ok)
      throw shieldProblem(
        ShieldProblem.Conflict,
        `${name} changed during the rollback; look at the status and try again`,
      );
    const replica = this.filters.replica(name);
    if (
      replica.active?.info.version === expect.active &&
      replica.previous?.info.version === expect.previous
    ) {
      replica.swap();
      this.filters.activated(name, 'rollback');
    } else {
      await this.filters.reload(name);
    }
  }

  private names(filter: string | undefined): string[] {
    if (filter === undefined) return [...this.filters.replicas.keys()];
    if (!this.filters.replicas.has(filter)) {
      throw shieldProblem(
        ShieldProblem.FilterNotFound,
        `Filters: ${[...this.filters.replicas.keys()].join(', ')}`,
      );
    }
    return [filter];
  }

  /** Admin errors: a store outage is a 503, a refused build a 422; ProblemExceptions pass unchanged. */
  private async guard<T>(p: Promise<T>): Promise<T> {
    try {
      return await p;
    } catch (err) {
      if (err instanceof ProblemException) throw err;
      if (isUnavailable(err))
        throw shieldProblem(
          ShieldProblem.StoreUnavailable,
          'Redis cannot be reached; the filters in memory keep answering',
        );
      if (err instanceof Error && err.name === 'BloomValidationError')
        throw shieldProblem(ShieldProblem.ValidationFailed, err.message);
      throw err;
    }
  }
}
