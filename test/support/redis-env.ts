import { Cluster, Redis } from 'ioredis';
import { inject } from 'vitest';

/** The suite's Redis URL, or '' (then use `describe.skipIf(!redisUrl())`). */
export function redisUrl(): string {
  return inject('redisUrl');
}

/** `cluster` when the suite's Redis is a Cluster (project e2e-cluster), else `standalone`. */
export function redisMode(): 'standalone' | 'cluster' {
  return inject('redisMode');
}

/**
 * The app environment for the suite's Redis: REDIS_URL, or in cluster mode
 * REDIS_CLUSTER_NODES. The test app helper applies it to `REDIS_URL: redisUrl()`.
 */
export function suiteRedisEnv(): Record<string, string> {
  return redisMode() === 'cluster'
    ? { REDIS_CLUSTER_NODES: inject('redisClusterNodes') }
    : { REDIS_URL: redisUrl() };
}

/** A client of the suite's Redis (a Cluster client in cluster mode); disconnect it after use. */
export function suiteRedisClient(): Redis | Cluster {
  if (redisMode() === 'standalone') return new Redis(redisUrl());
  return new Cluster(
    inject('redisClusterNodes')
      .split(',')
      .map((hp) => ({ host: hp.split(':')[0]!, port: Number(hp.split(':')[1]) })),
  );
}

/** True when the test may start its own redis-server processes. */
export function canStartRedis(): boolean {
  return inject('redisServerBinary');
}

let counter = 0;

/**
 * A unique environment name for one test, so keys never collide between
 * tests sharing one Redis (keys are `…{<env>:<service>}…`). Never flush a shared Redis.
 */
export function uniqueEnv(prefix = 't'): string {
  counter += 1;
  return `${prefix}${process.pid.toString(36)}${Date.now().toString(36)}${counter}`;
}
