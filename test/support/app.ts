import type { INestApplication, ModuleMetadata } from '@nestjs/common';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp } from '../../src/app.factory.js';
import { loadAppConfig } from '../../src/app.config.js';
import type { RampartConfig } from '../../src/config/config.types.js';
import type { HttpAdapterName } from '../../src/http/http-adapters.js';
import { AppRegistry } from '../../src/locks/signature/apps/app-registry.js';
import { printableConfig } from '../../src/config/mask.js';
import { createPino } from '../../src/logging/logger.js';
import { redisMode, redisUrl, suiteRedisEnv } from './redis-env.js';
import { addSecret, addSecretsOf, logSink, watchPort } from './secret-scan.js';

export const ADAPTERS: HttpAdapterName[] = ['express', 'fastify'];

export interface RunningApp {
  app: INestApplication;
  config: RampartConfig;
  /** Base URL, e.g. http://127.0.0.1:41234 */
  url: string;
  close(): Promise<void>;
}

/**
 * In the e2e-cluster project, an app pointed at the suite's Redis
 * (`REDIS_URL: redisUrl()`) gets the suite's Cluster instead
 * (REDIS_CLUSTER_NODES); any other Redis (a test's own) is left as is.
 */
function onSuiteRedis(env: Record<string, string | undefined>): Record<string, string | undefined> {
  if (redisMode() !== 'cluster' || !env.REDIS_URL || env.REDIS_URL !== redisUrl()) return env;
  const { REDIS_URL: _suite, ...rest } = env;
  return { ...rest, ...suiteRedisEnv() };
}

/**
 * Starts the whole Rampart app on a free port with the given environment
 * (merged over a quiet test default: no Redis, silent logs).
 */
export async function startApp(
  env: Record<string, string | undefined> = {},
  opts: {
    imports?: NonNullable<ModuleMetadata['imports']>;
    locks?: NonNullable<ModuleMetadata['imports']>;
    config?: (c: RampartConfig) => RampartConfig;
    /**
     * `cities` (default): the search index of 135k world cities, as `npm start` has it.
     * `empty`: an empty index (see emptySearchIndex) — for files that never search.
     */
    search?: SearchIndex;
  } = {},
): Promise<RunningApp> {
  let config = loadAppConfig({
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    HOST: '127.0.0.1',
    PORT: '0',
    ...onSuiteRedis(env),
  });
  if (opts.search === 'empty') config = emptySearchIndex(config);
  if (opts.config) config = opts.config(config);
  addSecretsOf(config);
  // Everything the app logs at debug and above goes to the secret scan; lines at the configured level still reach stderr.
  const logger = createPino('debug', logSink(PINO_LEVELS[config.logLevel]));
  // As src/main.ts does: the masked configuration at debug level (scanned like every other line).
  logger.debug({ config: printableConfig(config) }, 'configuration loaded');
  const app = await createApp(config, { imports: opts.imports, locks: opts.locks, logger });
  await app.listen(0, '127.0.0.1');
  const addr = app.getHttpServer().address() as { port: number };
  watchPort(addr.port);
  addAppSecrets(app);
  return {
    app,
    config,
    url: `http://127.0.0.1:${addr.port}`,
    close: async () => {
      addAppSecrets(app);
      await app.close();
    },
  };
}

export type SearchIndex = 'cities' | 'empty';

let emptyIndexDir: string | undefined;

/**
 * The SQLite search index in a file of this test process that is never seeded (`search.seed: none`):
 * every app start on the cities index reads 135k ids and their terms into two Bloom filters (about a
 * second of CPU each, in the background while the file's tests run). A file that never searches, nor
 * counts what the shield does, starts on this one instead. Never written to: no test adds items to it.
 */
function emptySearchIndex(config: RampartConfig): RampartConfig {
  if (config.search.backend !== 'sqlite') return config;
  if (!emptyIndexDir) {
    const dir = mkdtempSync(join(tmpdir(), 'rampart-empty-search-'));
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    emptyIndexDir = dir;
  }
  return {
    ...config,
    search: { ...config.search, sqlitePath: join(emptyIndexDir, 'search.sqlite') },
    sections: { ...config.sections, search: { seed: 'none' } },
  };
}

const PINO_LEVELS: Record<RampartConfig['logLevel'], number> = {
  trace: 10,
  debug: 20,
  info: 30,
  warn: 40,
  error: 50,
  fatal: 60,
  silent: Infinity,
};

/** The app secrets the registry holds now (apps file and admin API), for the secret scan. */
function addAppSecrets(app: INestApplication): void {
  let registry: AppRegistry;
  try {
    registry = app.get(AppRegistry, { strict: false });
  } catch {
    return; // an app started without the signature lock
  }
  for (const view of registry.list())
    for (const s of registry.get(view.id)?.secrets ?? [])
      addSecret(s.key.export().toString('utf8'), `app ${view.id} secret ${s.id}`);
}
