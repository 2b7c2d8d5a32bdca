import { describe, expect, it } from 'vitest';
import type { FilterSource } from './cache-shield.filter-source.js';
import type { KeySource } from './cache-shield.key-source.js';
import { CacheShieldRegistry } from './cache-shield.registry.js';

const keys = {} as KeySource;
const filter = (name: string): FilterSource => ({
  name,
  source: 'test:keys',
  async *keys() {
    yield 'a';
  },
});

describe(CacheShieldRegistry.name, () => {
  it("should keep every product's key sources and filters, a group per product", async () => {
    const registry = new CacheShieldRegistry();
    const hook = () => () => undefined;
    registry.register({
      keySources: { query: keys, id: keys },
      filters: [filter('search-terms'), filter('item-ids')],
      revision: async () => 7,
      onBeforeAdd: hook,
    });
    registry.register({ keySources: { color: keys }, filters: [filter('test-colors')] });
    registry.register({ keySources: { other: keys } });
    expect([...registry.keySources.keys()]).toEqual(['query', 'id', 'color', 'other']);
    const groups = registry.filterGroups();
    expect(groups.map((g) => g.filters.map((f) => f.name))).toEqual([
      ['search-terms', 'item-ids'],
      ['test-colors'],
    ]);
    expect(await groups[0]!.revision()).toBe(7);
    expect(groups[0]!.onBeforeAdd).toBe(hook);
    // A product without a revision never changes.
    expect(await groups[1]!.revision()).toBe(0);
    expect(groups[1]!.onBeforeAdd).toBeUndefined();
  });

  it('should refuse a name taken twice, a filter name unfit for Redis keys, and late registrations', () => {
    const registry = new CacheShieldRegistry();
    registry.register({ keySources: { query: keys }, filters: [filter('terms')] });
    expect(() => registry.register({ keySources: { query: keys } })).toThrow(/"query"/);
    expect(() => registry.register({ filters: [filter('terms')] })).toThrow(/"terms"/);
    expect(() => registry.register({ filters: [filter('a{b}')] })).toThrow(/"a\{b\}"/);
    registry.filterGroups();
    expect(() => registry.register({ keySources: { late: keys } })).toThrow(/forFeature/);
  });
});
