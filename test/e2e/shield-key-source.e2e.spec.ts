/**
 * The shield's extension point over HTTP, on both adapters: a test-only
 * product (`GET /test/colors/:name`, test/support/shield-colors.ts) plugs in
 * its own key source and filter through `CacheShieldModule.forFeature`, and
 * a policy names that key source. No shield code knows the route.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BloomService } from '../../src/locks/cache-shield/bloom/bloom.service.js';
import { ADMIN_TOKEN, AdminClient } from '../support/admin-client.js';
import { ADAPTERS, RunningApp, startApp } from '../support/app.js';
import {
  COLORS_FILTER,
  ColorsModule,
  handled,
  withColorsPolicy,
} from '../support/shield-colors.js';

async function get(app: RunningApp, name: string) {
  const res = await fetch(`${app.url}/test/colors/${name}`);
  return {
    status: res.status,
    shield: res.headers.get('rampart-shield'),
    body: (await res.json()) as Record<string, unknown>,
  };
}

describe.each(ADAPTERS)('a key source registered by a product (%s)', (adapter) => {
  let app: RunningApp;
  let admin: AdminClient;

  beforeAll(async () => {
    app = await startApp(
      { ADMIN_TOKEN, HTTP_ADAPTER: adapter },
      { imports: [ColorsModule], config: withColorsPolicy },
    );
    await app.app.get(BloomService).ready;
    admin = new AdminClient(app);
  });
  afterAll(() => app?.close());

  const version = () =>
    app.app.get(BloomService).filters.replica(COLORS_FILTER).active?.info.version;

  it("should answer a key the product's filter does not hold with the route's 404, never reaching the handler", async () => {
    const before = handled.length;
    for (const name of ['chartreuse-qqx', 'zzzyxw', 'not-a-color']) {
      const a = await get(app, name);
      expect(a.status).toBe(404);
      expect(a.body).toMatchObject({ error: 'color_not_found' });
      expect(a.shield).toBe(`bloom-absent;v=${version()}`);
    }
    expect(handled.length).toBe(before);
  });

  it('should call the handler once for a present key and answer its repeats from the cache', async () => {
    const before = handled.filter((n) => n === 'teal').length;
    const first = await get(app, 'teal');
    expect(first).toMatchObject({ status: 200, shield: null, body: { hex: '#008080' } });
    const again = await get(app, 'teal');
    expect(again).toMatchObject({ status: 200, shield: 'cache-hit', body: first.body });
    expect(handled.filter((n) => n === 'teal').length).toBe(before + 1);
  });

  it("should build the product's filter beside search's, and show it to the admin API", async () => {
    const status = await admin.get<{ filters: { name: string; active: { source: string } }[] }>(
      '/admin/bloom',
    );
    // Products register in the order Nest creates their modules: compare as sets.
    expect(status.body.filters.map((f) => f.name).sort()).toEqual(
      ['search-terms', 'item-ids', COLORS_FILTER].sort(),
    );
    expect(status.body.filters.find((f) => f.name === COLORS_FILTER)!.active.source).toBe(
      'memory:colors',
    );
  });

  it('should accept exactly the registered key sources as the slice option `key`', async () => {
    const patch = (key: string) =>
      admin.call('PATCH', '/admin/policies/colors/locks/cacheShield/options', {
        options: { key },
      });
    const refused = await patch('colour');
    expect(refused.status).toBe(400);
    const problems = (refused.body as { problems: string[] }).problems;
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^policies\.colors\.locks\.cacheShield\.key: must be "/);
    for (const name of ['"query"', '"id"', '"color"']) expect(problems[0]).toContain(name);
    expect((await patch('color')).status).toBe(200);
  });
});
