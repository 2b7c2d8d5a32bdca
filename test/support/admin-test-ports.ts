/**
 * Small, working implementations of the admin ports for tests, until the
 * cache-shield and circuit-breaker locks provide theirs: builds are kept in
 * memory with their versions, so rebuild and rollback really change state.
 * Neither provider is exported, to prove the admin API finds them app-wide.
 */
import { Injectable, Module } from '@nestjs/common';
import {
  BLOOM_ADMIN,
  BloomAdminPort,
  BloomBuildInfo,
  BloomFilterStatus,
} from '../../src/locks/cache-shield/cache-shield.admin.js';
import {
  BREAKER_ADMIN,
  BreakerAdminPort,
  BreakerStatus,
} from '../../src/locks/circuit-breaker/circuit-breaker.admin.js';
import { ProblemException } from '../../src/common/problem.exception.js';

@Injectable()
class MemoryBloomBuilds implements BloomAdminPort {
  private readonly builds = new Map<string, BloomBuildInfo[]>([
    ['terms', [build(1)]],
    ['item-ids', [build(1)]],
  ]);
  private readonly active = new Map<string, number>([
    ['terms', 1],
    ['item-ids', 1],
  ]);

  status(): Promise<BloomFilterStatus[]> {
    return Promise.resolve([...this.builds.keys()].map((name) => this.view(name)));
  }

  rebuild(filter?: string): Promise<BloomFilterStatus[]> {
    for (const name of this.names(filter)) {
      const list = this.builds.get(name)!;
      list.push(build(list.length + 1));
      this.active.set(name, list.length);
    }
    return this.status();
  }

  rollback(filter?: string, version?: number): Promise<BloomFilterStatus[]> {
    for (const name of this.names(filter)) {
      const target = version ?? this.active.get(name)! - 1;
      if (!this.builds.get(name)!.some((b) => b.version === target)) {
        throw new ProblemException(404, 'bloom_build_not_found', 'No such build', {
          detail: `filter ${name} has no build ${target}`,
        });
      }
      this.active.set(name, target);
    }
    return this.status();
  }

  private names(filter?: string): string[] {
    if (filter === undefined) return [...this.builds.keys()];
    if (!this.builds.has(filter))
      throw new ProblemException(404, 'bloom_filter_not_found', 'No such filter', {
        detail: filter,
      });
    return [filter];
  }

  private view(name: string): BloomFilterStatus {
    const list = this.builds.get(name)!;
    const v = this.active.get(name)!;
    return {
      name,
      active: list.find((b) => b.version === v) ?? null,
      previous: list.find((b) => b.version === v - 1) ?? null,
      building: false,
    };
  }
}

function build(version: number): BloomBuildInfo {
  return {
    version,
    items: 1000 * version,
    targetFp: 0.01,
    measuredFp: 0.009,
    source: 'test',
    builtAt: new Date().toISOString(),
  };
}

@Injectable()
class StaticBreakers implements BreakerAdminPort {
  status(): Promise<BreakerStatus[]> {
    return Promise.resolve([
      {
        name: 'search',
        state: 'closed',
        policies: ['search', 'search-item'],
        stats: { fires: 0, failures: 0 },
      },
    ]);
  }
}

@Module({
  providers: [
    { provide: BLOOM_ADMIN, useClass: MemoryBloomBuilds },
    { provide: BREAKER_ADMIN, useClass: StaticBreakers },
  ],
})
export class AdminTestPortsModule {}
