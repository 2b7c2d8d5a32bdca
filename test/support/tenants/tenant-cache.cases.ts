/**
 * Caches (docs/cache-shield.md#who-shares-a-cached-answer): on an app-scoped route (the default) an app never
 * reads another app's cached answer nor pre-fills another app's null cache; a shared route gives every app
 * the one answer, which is why only routes whose answer is the same for everyone are shared. In memory, a
 * hostile app's flood of new keys pushes out its own entries, not another app's.
 */
import { expect, it } from 'vitest';
import { CACHE_ENTRIES } from './tenant-policies.js';
import { type Tenants } from './tenant-app.js';
import { callsOf } from './tenant-routes.js';

export function cacheCases(t: () => Tenants, store: string): void {
  it("should not answer one app's cached note to another app asking for the same key", async () => {
    const { get } = t();
    expect(await get('ten-a', '/tenant-test/notes/plan')).toMatchObject({
      status: 200,
      shield: null,
      body: { text: 'a: plan' },
    });
    const again = await get('ten-a', '/tenant-test/notes/plan');
    expect([again.shield, again.body.text]).toEqual(['cache-hit', 'a: plan']);
    // The same key from the other apps: each its own answer, from the handler.
    expect(await get('ten-b', '/tenant-test/notes/plan')).toMatchObject({
      status: 200,
      shield: null,
      body: { text: 'b: plan' },
    });
    const hostile = await get('ten-x', '/tenant-test/notes/plan');
    expect([hostile.status, hostile.shield]).toEqual([404, null]);
    expect(['ten-a', 'ten-b', 'ten-x'].map((a) => callsOf(`notes:${a}:plan`))).toEqual([1, 1, 1]);
  });

  it('should not let a hostile app pre-fill the null cache of a key another app has', async () => {
    const { get } = t();
    expect((await get('ten-x', '/tenant-test/notes/launch')).status).toBe(404);
    const cached = await get('ten-x', '/tenant-test/notes/launch');
    expect([cached.status, cached.shield]).toEqual([404, 'null-cache']);
    expect(await get('ten-a', '/tenant-test/notes/launch')).toMatchObject({
      status: 200,
      shield: null,
      body: { text: 'a: launch' },
    });
    // …nor overwrite the victim's entry: its next answer is its own, from the cache.
    expect((await get('ten-x', '/tenant-test/notes/launch')).shield).toBe('null-cache');
    const victim = await get('ten-a', '/tenant-test/notes/launch');
    expect([victim.shield, victim.body.text]).toEqual(['cache-hit', 'a: launch']);
  });

  it('should give every app the one answer of a shared route (the same for everyone)', async () => {
    const { get } = t();
    const first = await get('ten-x', '/tenant-test/public/docs');
    expect([first.status, first.shield]).toEqual([200, null]);
    const other = await get('ten-a', '/tenant-test/public/docs');
    expect([other.shield, other.body]).toEqual(['cache-hit', first.body]);
    expect(callsOf('public:ten-a:docs') + callsOf('public:ten-x:docs')).toBe(1);
  });

  // Redis keeps every entry until its TTL; the bounded memory store is the one that evicts.
  it.runIf(store === 'memory')(
    "should not let a hostile app's flood of new keys evict another app's cached answers",
    async () => {
      const { get } = t();
      expect((await get('ten-b', '/tenant-test/notes/plan')).shield).toBe('cache-hit');
      for (let i = 0; i < CACHE_ENTRIES * 3; i++)
        expect((await get('ten-x', `/tenant-test/notes/junk-${i}`)).status).toBe(404);
      const after = await get('ten-b', '/tenant-test/notes/plan');
      expect([after.shield, after.body.text]).toEqual(['cache-hit', 'b: plan']);
      expect((await get('ten-a', '/tenant-test/notes/launch')).shield).toBe('cache-hit');
    },
  );
}
