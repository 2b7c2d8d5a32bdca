import { inject } from 'vitest';

/** The suite's Redis URL, or '' (then use `describe.skipIf(!redisUrl())`). */
export function redisUrl(): string {
  return inject('redisUrl');
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
