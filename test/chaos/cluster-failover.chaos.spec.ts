/**
 * A master failover on a 3-master Redis Cluster with one replica each (all
 * started by the test), under load: `CLUSTER FAILOVER` on the replica of the
 * master that holds this deployment's slot (every key carries the
 * `{env:service}` hash tag). Same checks as the other Redis faults.
 */
import { execFileSync } from 'node:child_process';
import { Cluster } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BloomService } from '../../src/locks/cache-shield/bloom/bloom.service.js';
import { RunningApp, startApp } from '../support/app.js';
import {
  chaosPolicies,
  fixtureSearchEnv,
  keysWithoutTtl,
  loadLoop,
  msUntil,
  sleep,
  undesigned,
} from '../support/chaos.js';
import { canStartRedis } from '../support/redis-env.js';
import { RedisClusterProcess, startRedisCluster } from '../support/redis-server.js';

const COMMAND_TIMEOUT_MS = 100;
const BREAKER_TIMEOUT_MS = 2_000;
const BOUND_MS = 3 * COMMAND_TIMEOUT_MS + BREAKER_TIMEOUT_MS + 500;
const ENV = 'cfail';

const cli = (port: number, ...args: string[]) =>
  execFileSync('redis-cli', ['-p', String(port), ...args], { encoding: 'utf8' }).trim();

/** Port of the master serving `slot` and of its replica (0 when none is listed), from CLUSTER NODES. */
function masterAndReplica(port: number, slot: number): { master: number; replica: number } {
  const nodes = cli(port, 'cluster', 'nodes')
    .split('\n')
    .map((l) => l.split(' '));
  const owner = nodes.find(
    (n) =>
      n[2]!.includes('master') &&
      n.slice(8).some((r) => {
        const [a, b] = r.split('-').map(Number);
        return slot >= a! && slot <= (b ?? a)!;
      }),
  );
  // During a failover the old master may not be listed as a replica yet: replica 0 then.
  const replica = owner && nodes.find((n) => n[3] === owner[0]);
  const portOf = (n: string[] | undefined) => (n ? Number(n[1]!.split('@')[0]!.split(':')[1]) : 0);
  return { master: portOf(owner), replica: portOf(replica) };
}

describe.skipIf(!canStartRedis())('chaos: Redis Cluster master failover under load', () => {
  let cluster: RedisClusterProcess;
  let app: RunningApp;

  beforeAll(async () => {
    cluster = await startRedisCluster(3, 1);
    app = await startApp(
      {
        REDIS_CLUSTER_NODES: cluster.nodes.map((n) => `${n.host}:${n.port}`).join(','),
        RAMPART_ENV: ENV,
        REDIS_COMMAND_TIMEOUT_MS: String(COMMAND_TIMEOUT_MS),
        REDIS_MAX_RECONNECT_DELAY_MS: '500',
        ...(await fixtureSearchEnv()),
      },
      { config: chaosPolicies },
    );
    await app.app.get(BloomService).ready;
  });
  afterAll(async () => {
    await app?.close();
    await cluster?.stop();
  });

  it('should answer by design within the bound through CLUSTER FAILOVER, and recover within 2 s', async () => {
    const ready = async () => (await fetch(`${app.url}/health/ready`)).status === 200;
    expect(await msUntil(ready, 5_000)).toBeLessThan(5_000);
    const port = cluster.nodes[0]!.port;
    const slot = Number(cli(port, 'cluster', 'keyslot', `{${ENV}:rampart}`));
    const before = masterAndReplica(port, slot);
    expect(before.replica).toBeGreaterThan(0);
    const load = loadLoop(
      [
        { route: 'search', url: (i) => `${app.url}/v1/search?q=paris&offset=${i % 7}` },
        { route: 'search', url: (i) => `${app.url}/v1/search?q=qqzx${i}vw` },
      ],
      { concurrency: 4, maxMs: 30_000, pauseMs: 2 },
    );
    await sleep(1_500);
    expect(cli(before.replica, 'cluster', 'failover')).toBe('OK');
    const promoted = await msUntil(
      () => masterAndReplica(port, slot).master === before.replica,
      10_000,
    );
    expect(promoted).toBeLessThan(10_000);
    const back = await msUntil(ready, 5_000);
    await sleep(1_500);
    const samples = await load.stop();

    expect(back).toBeLessThanOrEqual(2_000);
    expect(samples.length).toBeGreaterThan(50);
    expect(undesigned(samples)).toEqual([]);
    expect(samples.filter((s) => s.ms > BOUND_MS)).toEqual([]);
    // Served by the new master afterwards: a request after the failover wrote keys there.
    const client = new Cluster(cluster.nodes, { lazyConnect: true });
    try {
      await client.connect();
      expect(await keysWithoutTtl(client)).toEqual([]);
      expect(Number(cli(before.replica, 'dbsize'))).toBeGreaterThan(0);
    } finally {
      client.disconnect();
    }
  });
});
