import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadAppConfig } from '../../src/app.config.js';
import { MetricsService } from '../../src/metrics/metrics.service.js';
import { RedisScriptError, RedisUnavailableError } from '../../src/redis/redis.errors.js';
import { RedisService } from '../../src/redis/redis.service.js';
import {
  RedisClusterProcess,
  RedisProcess,
  startRedis,
  startRedisCluster,
} from '../support/redis-server.js';
import { canStartRedis } from '../support/redis-env.js';

async function service(env: Record<string, string>): Promise<RedisService> {
  const s = new RedisService(loadAppConfig({ LOG_LEVEL: 'silent', ...env }), new MetricsService());
  await s.onModuleInit();
  return s;
}

async function until(cond: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe.skipIf(!canStartRedis())(`${RedisService.name} (standalone, private redis-server)`, () => {
  let server: RedisProcess;
  let redis: RedisService;

  beforeAll(async () => {
    server = await startRedis();
    redis = await service({ REDIS_URL: server.url, REDIS_COMMAND_TIMEOUT_MS: '200' });
  });
  afterAll(async () => {
    await redis?.onApplicationShutdown();
    await server?.stop();
  });

  it('should call a lua script by name and get its answer', async () => {
    const [echo, seconds] = await redis.script<[string, string, string]>('ping', [], ['hello']);
    expect(echo).toBe('hello');
    expect(Number(seconds)).toBeGreaterThan(1_700_000_000);
  });

  it('should reload a script after SCRIPT FLUSH (NOSCRIPT) and still answer', async () => {
    await redis.run('flush scripts', (c) => c.script('FLUSH'));
    const [echo] = await redis.script<[string]>('ping', [], ['again']);
    expect(echo).toBe('again');
  });

  it('should name the script when it fails for a reason other than availability', async () => {
    await expect(redis.script('no_such_script', [], [])).rejects.toBeInstanceOf(RedisScriptError);
    await expect(redis.run('bad command', (c) => c.call('NOT_A_COMMAND'))).rejects.toBeInstanceOf(
      RedisScriptError,
    );
  });

  it('should fail with a typed error instead of hanging when Redis stops answering, and recover', async () => {
    server.pause();
    try {
      await expect(redis.script('ping', [], ['x'])).rejects.toBeInstanceOf(RedisUnavailableError);
    } finally {
      server.resume();
    }
    await until(async () => {
      try {
        await redis.script('ping', [], ['y']);
        return true;
      } catch {
        return false;
      }
    });
  });

  it('should deliver a reply that arrived while the event loop was stalled past the timeout (no false timeout)', async () => {
    // The commands go out, Redis answers at once, then the loop is busy for 3× the 200 ms
    // timeout (a GC pause, a long synchronous task): the replies wait in the socket.
    const calls = [
      redis.script<[string]>('ping', [], ['during a stall']),
      redis.run('get', (c) => c.get('stall-probe')),
    ];
    const stallUntil = Date.now() + 600;
    while (Date.now() < stallUntil) {
      /* the event loop is blocked */
    }
    const [[echo], value] = (await Promise.all(calls)) as [[string], string | null];
    expect(echo).toBe('during a stall');
    expect(value).toBeNull();
  });

  it('should fail fast while Redis is down, never replay a command after it returns, and reconnect by itself', async () => {
    await redis.run('set', (c) => c.set('replay-probe', '0'));
    await server.kill();
    await until(() => !redis.ready);
    const failures = await Promise.allSettled(
      Array.from({ length: 5 }, () => redis.run('incr', (c) => c.incr('replay-probe'))),
    );
    expect(
      failures.every((f) => f.status === 'rejected' && f.reason instanceof RedisUnavailableError),
    ).toBe(true);
    await server.start();
    await until(() => redis.ready, 15_000);
    // A fresh server: the key is gone; had the 5 INCRs been queued and replayed it would read 5.
    expect(await redis.run('get', (c) => c.get('replay-probe'))).toBeNull();
  });
});

describe(`${RedisService.name} without Redis`, () => {
  it('should be disabled and answer every call with a typed error', async () => {
    const redis = await service({});
    expect(redis.enabled).toBe(false);
    await expect(redis.script('ping', [], ['x'])).rejects.toBeInstanceOf(RedisUnavailableError);
  });

  it('should boot with an unreachable Redis and fail calls fast', async () => {
    const redis = await service({
      REDIS_URL: 'redis://127.0.0.1:1',
      REDIS_CONNECT_TIMEOUT_MS: '200',
    });
    try {
      expect(redis.ready).toBe(false);
      await expect(redis.script('ping', [], ['x'])).rejects.toBeInstanceOf(RedisUnavailableError);
    } finally {
      await redis.onApplicationShutdown();
    }
  });
});

describe.skipIf(!canStartRedis())(`${RedisService.name} (3-master cluster)`, () => {
  let cluster: RedisClusterProcess;
  let redis: RedisService;

  beforeAll(async () => {
    cluster = await startRedisCluster(3);
    redis = await service({
      REDIS_CLUSTER_NODES: cluster.nodes.map((n) => `${n.host}:${n.port}`).join(','),
      REDIS_COMMAND_TIMEOUT_MS: '500',
    });
  }, 60_000);
  afterAll(async () => {
    await redis?.onApplicationShutdown();
    await cluster?.stop();
  });

  it('should run scripts on keys in any slot, with the hash tag keeping one request on one node', async () => {
    expect(redis.ready).toBe(true);
    for (const key of ['a', 'b', 'c', 'd', 'e', 'f']) {
      const [echo] = await redis.script<[string]>('ping', [`${redis.tag}:${key}`], [key]);
      expect(echo).toBe(key);
    }
  });
});
