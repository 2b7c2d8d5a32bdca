/**
 * Redis Sentinel (REDIS_SENTINELS, REDIS_SENTINEL_NAME) with a real Sentinel
 * (`redis-server <conf> --sentinel`) and a primary/replica pair, all started
 * by the test on free ports; a SENTINEL FAILOVER under load: answers by
 * design within the bound, the app follows the new primary within 2 s of
 * the switch, and afterwards no key without a TTL.
 */
import { execFileSync } from 'node:child_process';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, READY_DETAIL } from '../support/admin-client.js';
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
import { RedisProcess, startRedis, startSentinel } from '../support/redis-server.js';

const COMMAND_TIMEOUT_MS = 100;
const BREAKER_TIMEOUT_MS = 2_000;
const BOUND_MS = 3 * COMMAND_TIMEOUT_MS + BREAKER_TIMEOUT_MS + 500;

const cli = (port: number, ...args: string[]) =>
  execFileSync('redis-cli', ['-p', String(port), ...args], { encoding: 'utf8' }).trim();

describe.skipIf(!canStartRedis())('chaos: Redis Sentinel failover under load', () => {
  let primary: RedisProcess;
  let replica: RedisProcess;
  let sentinel: RedisProcess;
  let app: RunningApp;

  const primaryPort = () =>
    Number(cli(sentinel.port, 'sentinel', 'get-master-addr-by-name', 'mymaster').split('\n')[1]);

  beforeAll(async () => {
    primary = await startRedis();
    replica = await startRedis(['--replicaof', '127.0.0.1', String(primary.port)]);
    sentinel = await startSentinel(primary.port);
    // The Sentinel must know the replica (from the primary's INFO) before it can promote it.
    const known = await msUntil(
      () =>
        /master_link_status:up/.test(cli(replica.port, 'info', 'replication')) &&
        cli(sentinel.port, 'sentinel', 'replicas', 'mymaster').includes(String(replica.port)),
      20_000,
    );
    expect(known).toBeLessThan(20_000);
    app = await startApp(
      {
        ADMIN_TOKEN,
        REDIS_SENTINELS: `127.0.0.1:${sentinel.port}`,
        REDIS_SENTINEL_NAME: 'mymaster',
        RAMPART_ENV: 'sent',
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
    for (const p of [sentinel, replica, primary]) await p?.stop();
  });

  it('should find the primary through the Sentinel and report the mode', async () => {
    const res = await fetch(`${app.url}/health/ready`, READY_DETAIL);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { info: { redis: { mode: string } } };
    expect(body.info.redis.mode).toBe('sentinel');
    expect(primaryPort()).toBe(primary.port);
    expect(Number(cli(primary.port, 'dbsize'))).toBeGreaterThan(0);
  });

  it('should answer by design within the bound through SENTINEL FAILOVER and follow the new primary', async () => {
    const ready = async () => (await fetch(`${app.url}/health/ready`)).status === 200;
    const load = loadLoop(
      [
        { route: 'search', url: (i) => `${app.url}/v1/search?q=paris&offset=${i % 7}` },
        { route: 'search', url: (i) => `${app.url}/v1/search?q=qqzx${i}vw` },
      ],
      { concurrency: 4, maxMs: 40_000, pauseMs: 2 },
    );
    await sleep(1_500);
    expect(cli(sentinel.port, 'sentinel', 'failover', 'mymaster')).toBe('OK');
    expect(await msUntil(() => primaryPort() === replica.port, 15_000)).toBeLessThan(15_000);
    const back = await msUntil(
      async () => /role:master/.test(cli(replica.port, 'info', 'replication')) && (await ready()),
      5_000,
    );
    // The app's scripts now run on the new primary (its EVALSHA count grows under the load;
    // a key count need not grow: the load's rate-limit keys are already there).
    const evalCalls = () =>
      Number(
        /cmdstat_evalsha:calls=(\d+)/.exec(cli(replica.port, 'info', 'commandstats'))?.[1] ?? 0,
      );
    const before = evalCalls();
    await sleep(1_500);
    const samples = await load.stop();

    expect(back).toBeLessThanOrEqual(2_000);
    expect(samples.length).toBeGreaterThan(50);
    expect(undesigned(samples)).toEqual([]);
    expect(samples.filter((s) => s.ms > BOUND_MS)).toEqual([]);
    expect(evalCalls()).toBeGreaterThan(before);
    const client = new Redis(replica.url);
    try {
      expect(await keysWithoutTtl(client)).toEqual([]);
    } finally {
      client.disconnect();
    }
  });
});
