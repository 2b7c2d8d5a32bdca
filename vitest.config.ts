import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

/**
 * Three rings:
 *  - unit:        src/**\/*.spec.ts — beside the code, no network (unit-mocks: the ones using vi.mock)
 *  - integration: test/integration/**\/*.spec.ts — against a real redis-server / PostgreSQL
 *  - e2e:         test/e2e/**\/*.e2e.spec.ts — the whole app over HTTP, on both adapters
 *  - e2e-cluster: the Redis-backed e2e files again, on a 3-master Redis Cluster the suite starts
 *  - chaos:       test/chaos/**\/*.chaos.spec.ts — faults under load (Redis killed, slowed, failed over;
 *                 upstream hanging; an instance killed) against redis-servers the tests start
 *  - browser:     test/browser/**\/*.spec.ts — the admin console in headless Chromium (playwright-core),
 *                 against the whole app; test/browser/support/build-console.ts builds the console first
 * test/support/global-setup.ts provides a Redis URL (REDIS_URL, or a redis-server it starts).
 */
/**
 * Files at once in the first group (unit, integration, e2e): RAMPART_TEST_WORKERS, else vitest's
 * default (cores - 1: one on a 2-core machine). Measured on a saturated 2-core machine (load ~20):
 * 2 workers ran the telegram and bans e2e files in about the same wall time as 1, with more
 * timing failures, so the default stays.
 */
const WORKERS = Number(process.env.RAMPART_TEST_WORKERS) || undefined;

/**
 * Files at once in the unit group (unit, unit-mocks): no ports, servers or Redis, only CPU, so every
 * core (at least 2: on a 2-core machine the first group's default is 1). RAMPART_UNIT_WORKERS overrides.
 */
const UNIT_WORKERS =
  Number(process.env.RAMPART_UNIT_WORKERS) || Math.max(2, availableParallelism());
/** The unit group runs on its own (vitest gives a group one maxWorkers): after the first group, browser and chaos. */
const UNIT_GROUP = { maxWorkers: UNIT_WORKERS, sequence: { groupOrder: 3 } };

/** Unit files that replace a module with vi.mock: they run in a fresh module graph each. */
export const MOCKING = [
  'src/common/loop-monitor.spec.ts',
  'src/locks/signature/hmac/mac-cost.spec.ts',
];

/** The e2e files that use the suite's Redis: e2e-cluster runs them on a Redis Cluster. */
const REDIS_E2E = [
  'admin-console-api',
  'admin-input',
  'admin-locks',
  'admin-sync',
  'platform',
  'rate-limit',
  'readiness',
  'shield',
  'signature-redis',
].map((f) => `test/e2e/${f}.e2e.spec.ts`);

export default defineConfig({
  test: {
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // A worker process runs file after file and keeps the modules it has loaded: re-importing Nest,
    // the app and its dependencies for every file cost about half of the suite's time. Every file
    // starts its own apps, Redis keys and servers, so nothing else is shared. Files that replace a
    // module (vi.mock) need a fresh one: unit-mocks.
    isolate: false,
    // Chaos and browser run one file at a time, each in a group of its own: vitest gives a group one
    // maxWorkers, and theirs (1) differs from the first group's wherever that one is more than 1.
    maxWorkers: WORKERS,
    // ioredis rejects the commands still queued on a client that is being closed with "Connection
    // is closed." from its close handler, and some of those promises are its own (resubscribe,
    // handshake) with no handler (redis/ioredis#971, wontfix). It only happens when a client is
    // quit on purpose, i.e. an app of the suite shutting down while its Redis is restarting.
    // Only that exact error, raised from that exact place, is not counted; anything else is.
    onUnhandledError: (error) => !isIoredisCloseFlush(error),
    reporters: process.env.CI ? ['default'] : ['default'],
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: [
            'src/**/*.spec.ts',
            'console/src/**/*.spec.ts',
            'test/architecture/**/*.spec.ts',
            'test/docs/**/*.spec.ts',
            'test/deploy/**/*.spec.ts',
          ],
          exclude: MOCKING,
          ...UNIT_GROUP,
        },
      },
      {
        extends: true,
        test: { name: 'unit-mocks', include: MOCKING, isolate: true, ...UNIT_GROUP },
      },
      {
        extends: true,
        test: { name: 'integration', include: ['test/integration/**/*.spec.ts'] },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.e2e.spec.ts'],
          // The secret scan: every log line and response of the apps a file starts (test/support/secret-scan.ts).
          setupFiles: ['test/support/e2e-setup.ts'],
        },
      },
      {
        extends: true,
        test: {
          // The Redis-backed e2e files again, on a 3-master Redis Cluster the suite starts
          // (test/support/global-setup.ts; the app helper swaps REDIS_URL for REDIS_CLUSTER_NODES).
          name: 'e2e-cluster',
          include: REDIS_E2E,
        },
      },
      {
        extends: true,
        test: {
          name: 'chaos',
          include: ['test/chaos/**/*.chaos.spec.ts'],
          testTimeout: 90_000,
          // Faults under load need the cores: one file at a time, after the other projects
          // (their latency bounds leave slack for a busy machine, not for five test rings at once).
          fileParallelism: false,
          sequence: { groupOrder: 2 },
        },
      },
      {
        extends: true,
        test: {
          name: 'browser',
          include: ['test/browser/**/*.spec.ts'],
          globalSetup: ['test/support/global-setup.ts', 'test/browser/support/build-console.ts'],
          testTimeout: 90_000,
          hookTimeout: 120_000,
          // One Chromium per file and one file at a time, after the first group.
          fileParallelism: false,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});

function isIoredisCloseFlush(error: { message?: string; stack?: string }): boolean {
  return (
    error.message === 'Connection is closed.' &&
    /ioredis[\\/]built[\\/]redis[\\/]event_handler\.js/.test(error.stack ?? '') &&
    /\bclose\b/.test(error.stack ?? '')
  );
}
