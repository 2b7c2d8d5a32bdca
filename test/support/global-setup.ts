import type { TestProject } from 'vitest/node';
import {
  RedisClusterProcess,
  RedisProcess,
  redisServerAvailable,
  startRedis,
  startRedisCluster,
} from './redis-server.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** URL of a Redis for tests that only read and write their own keys; '' when none. */
    redisUrl: string;
    /** True when tests may start their own redis-server (binary on PATH). */
    redisServerBinary: boolean;
    /** `cluster` in the e2e-cluster project: the suite's Redis is a 3-master Cluster. */
    redisMode: 'standalone' | 'cluster';
    /** Seed nodes (`host:port,…`) of the suite's Cluster; '' when standalone. */
    redisClusterNodes: string;
  }
}

let own: RedisProcess | undefined;
let cluster: RedisClusterProcess | undefined;

/**
 * Redis for the suite: REDIS_URL when set; otherwise a private redis-server on
 * a free port when the binary is on PATH; otherwise none — Redis tests are then
 * skipped with a loud message, or fail the run when CI=true.
 */
export async function setup(project: TestProject): Promise<void> {
  const binary = redisServerAvailable();
  // The e2e-cluster project runs the Redis-backed e2e files against a 3-master Cluster of its own.
  if (project.name === 'e2e-cluster' || process.env.REDIS_TEST_MODE === 'cluster') {
    if (!binary) throw new Error('e2e-cluster needs redis-server on PATH to start a Redis Cluster');
    cluster = await startRedisCluster(3);
    const nodes = cluster.nodes.map((n) => `${n.host}:${n.port}`);
    project.provide('redisUrl', `redis://${nodes[0]}`);
    project.provide('redisServerBinary', binary);
    project.provide('redisMode', 'cluster');
    project.provide('redisClusterNodes', nodes.join(','));
    return;
  }
  let url = process.env.REDIS_URL ?? '';
  if (!url && binary) {
    own = await startRedis();
    url = own.url;
  }
  if (!url) {
    const msg =
      'NO REDIS: neither REDIS_URL nor redis-server on PATH — every Redis-backed test is SKIPPED';
    if (process.env.CI === 'true') throw new Error(`${msg} (CI=true makes this a failure)`);
    process.stderr.write(`\n\n*** ${msg} ***\n\n`);
  }
  project.provide('redisUrl', url);
  project.provide('redisServerBinary', binary);
  project.provide('redisMode', 'standalone');
  project.provide('redisClusterNodes', '');
}

export async function teardown(): Promise<void> {
  await own?.stop();
  await cluster?.stop();
}
