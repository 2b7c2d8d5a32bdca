import type { TestProject } from 'vitest/node';
import { RedisProcess, redisServerAvailable, startRedis } from './redis-server.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** URL of a Redis for tests that only read and write their own keys; '' when none. */
    redisUrl: string;
    /** True when tests may start their own redis-server (binary on PATH). */
    redisServerBinary: boolean;
  }
}

let own: RedisProcess | undefined;

/**
 * Redis for the suite: REDIS_URL when set; otherwise a private redis-server on
 * a free port when the binary is on PATH; otherwise none — Redis tests are then
 * skipped with a loud message, or fail the run when CI=true.
 */
export async function setup(project: TestProject): Promise<void> {
  const binary = redisServerAvailable();
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
}

export async function teardown(): Promise<void> {
  await own?.stop();
}
