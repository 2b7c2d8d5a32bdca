/**
 * What the admin API gained for the console: the 15-minute counter series,
 * each instance's policy version, the sampled Redis figures (one sample
 * shared by every instance) and the breakers' recent latency.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RampartConfig } from '../../src/config/config.types.js';
import { ADMIN_TOKEN, AdminClient, eventually } from '../support/admin-client.js';
import { ADAPTERS, RunningApp, startApp } from '../support/app.js';
import { redisUrl, uniqueEnv } from '../support/redis-env.js';

type Status = {
  policyVersion: number;
  instances: { id: string; self: boolean; policyVersion?: number }[];
  redis: { usedMemoryBytes: number; rateLimitKeys: number; sampledAt: string } | null;
};
type Series = {
  stepMs: number;
  now: number;
  points: { at: number; byPolicy: Record<string, Record<string, Record<string, number>>> }[];
};
type Breakers = {
  breakers: { name: string; latency: { calls: number; p50Ms: number | null } | null }[];
};

const fast = (c: RampartConfig): RampartConfig => ({
  ...c,
  sections: {
    ...c.sections,
    admin: { statsIntervalMs: 200, seriesStepMs: 300, redisSampleMs: 1000 },
  },
});

describe.each(ADAPTERS)('admin API for the console (%s)', (adapter) => {
  const env = uniqueEnv('con');
  const started: RunningApp[] = [];
  const start = (redis: boolean) =>
    startApp(
      {
        HTTP_ADAPTER: adapter,
        ADMIN_TOKEN,
        REDIS_URL: redis ? redisUrl() : undefined,
        RAMPART_ENV: env,
        REDIS_COMMAND_TIMEOUT_MS: '1000',
      },
      { config: fast },
    ).then((a) => (started.push(a), a));
  let admin: AdminClient;

  beforeAll(async () => {
    admin = new AdminClient(await start(false));
  });
  afterAll(() => Promise.all(started.map((a) => a.close())));

  it('should refuse the series without a token', async () => {
    expect((await admin.withToken(null).get('/admin/status/series')).status).toBe(401);
    expect((await admin.get('/admin/status/series?since=0x10')).status).toBe(400);
  });

  it('should count traffic into the series, and give only newer points with `since`', async () => {
    for (let i = 0; i < 5; i++) await fetch(`${admin.app.url}/v1/search?q=paris&limit=1`);
    const allowed = (s: Series) =>
      s.points.reduce((n, p) => n + (p.byPolicy.search?.signature?.allowed ?? 0), 0);
    // Every request lands in exactly one step (none twice, none lost).
    const series = await eventually(
      async () => (await admin.get<Series>('/admin/status/series')).body,
      (s) => allowed(s) >= 5,
      10_000,
      100,
    );
    expect(series.stepMs).toBe(300);
    expect(allowed(series)).toBe(5);
    const last = series.points.at(-1)!.at;
    const newer = (await admin.get<Series>(`/admin/status/series?since=${last}`)).body.points;
    expect(newer.every((p) => p.at > last)).toBe(true);
  });

  it('should tell each instance’s policy version, and no Redis figures without Redis', async () => {
    const s = (await admin.get<Status>('/admin/status')).body;
    expect(s.instances).toEqual([
      expect.objectContaining({ self: true, policyVersion: s.policyVersion }),
    ]);
    expect(s.redis).toBeNull();
  });

  it('should give each breaker its recent latency once calls went through', async () => {
    const b = await eventually(
      async () => (await admin.get<Breakers>('/admin/breakers')).body,
      (x) => (x.breakers.find((y) => y.name === 'search')?.latency?.calls ?? 0) > 0,
      10_000,
      200,
    );
    expect(b.breakers.find((y) => y.name === 'search')?.latency?.p50Ms).toEqual(expect.any(Number));
  });

  describe.skipIf(!redisUrl())('with Redis', () => {
    it('should share one sample of the Redis figures between instances, also as metrics', async () => {
      const [one, two] = [new AdminClient(await start(true)), new AdminClient(await start(true))];
      await fetch(`${one.app.url}/v1/search?q=paris&limit=1`);
      const figures = async (c: AdminClient) => (await c.get<Status>('/admin/status')).body.redis;
      // Both instances read the one shared sample; a newer sample may land between two reads,
      // so read both until they show the same one.
      const [a, b] = await eventually(
        async () => [await figures(one), await figures(two)] as const,
        ([x, y]) => (x?.rateLimitKeys ?? 0) > 0 && x?.sampledAt === y?.sampledAt,
        20_000,
        200,
      );
      expect(b).toEqual(a);
      expect(a!.usedMemoryBytes).toBeGreaterThan(0);
      const metrics = await (await fetch(`${two.app.url}/metrics`)).text();
      expect(metrics).toMatch(/^rampart_redis_memory_used_bytes \d+/m);
      expect(metrics).toMatch(/^rampart_ratelimit_keys [1-9]\d*/m);
      expect(metrics).toMatch(/^rampart_redis_figures_timestamp_seconds \d+/m);
      const s = (await one.get<Status>('/admin/status')).body;
      expect(s.instances.map((i) => i.policyVersion)).toEqual([s.policyVersion, s.policyVersion]);
    });
  });
});
