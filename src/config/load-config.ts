import type { RoutePolicy } from './policy.types.js';
import type { HttpAdapterName } from '../http/http-adapters.js';
import type { LogLevel } from '../logging/logger.js';
import { LOG_FORMATS } from '../logging/log-format.js';
import type { RampartConfig, SearchBackendName } from './config.types.js';
import { ConfigError } from './config.error.js';
import { isValidCidr } from '../http/cidr.js';
import { loadAdminTokensFile } from './admin-tokens-file.js';
import { readDataFile } from './data-file.js';
import { isRecord } from '../common/is-record.js';
import { Problems, bool, int, list, oneOf, url, type Env } from './env-readers.js';
import { inferenceSettings, redisSettings, serverLimits } from './env-sections.js';
import { mergePolicies } from './merge-policies.js';

const LOG_LEVELS: readonly LogLevel[] = [
  'fatal',
  'error',
  'warn',
  'info',
  'debug',
  'trace',
  'silent',
];
const ADAPTERS: readonly HttpAdapterName[] = ['express', 'fastify'];
const SEARCH_BACKENDS: readonly SearchBackendName[] = ['sqlite', 'postgres'];

/**
 * Loads and validates the whole configuration once, from the environment and
 * the optional CONFIG_FILE, whose policies are merged over `shipped` (the
 * service's own, assembled in app.policies.ts). Throws a ConfigError that
 * lists every problem.
 */
export function loadConfig(env: Env, shipped: Record<string, RoutePolicy>): RampartConfig {
  const p = new Problems();
  const configFile = env.CONFIG_FILE || undefined;
  const file = configFile ? readDataFile(configFile, 'CONFIG_FILE', p) : undefined;
  if (file !== undefined && !isRecord(file))
    p.add('CONFIG_FILE must hold an object at the top level');
  const fileObj = isRecord(file) ? file : {};
  const { policies: filePolicies, ...sections } = fileObj;

  const rateLimitKeySecret = env.RATE_LIMIT_KEY_SECRET || undefined;
  if (rateLimitKeySecret !== undefined && rateLimitKeySecret.length < 16)
    p.add('RATE_LIMIT_KEY_SECRET must be at least 16 characters');
  const redisDataSecret = env.REDIS_DATA_KEY || undefined;
  if (redisDataSecret !== undefined && redisDataSecret.length < 32)
    p.add('REDIS_DATA_KEY must be at least 32 characters');
  const trustedProxies = list(env, 'TRUSTED_PROXIES');
  for (const cidr of trustedProxies) {
    if (!isValidCidr(cidr)) p.add(`TRUSTED_PROXIES: "${cidr}" is not an IP address or CIDR`);
  }
  const corsOrigins = list(env, 'CORS_ORIGINS');
  for (const o of corsOrigins) {
    if (!/^https?:\/\/[^/\s]+$/.test(o))
      p.add(`CORS_ORIGINS: "${o}" must be an origin such as https://app.example.com`);
  }

  const backend = oneOf(env, 'SEARCH_BACKEND', SEARCH_BACKENDS, 'sqlite', p);
  const databaseUrl = url(env, 'DATABASE_URL', ['postgres:', 'postgresql:'], p);
  if (backend === 'postgres' && !databaseUrl) p.add('SEARCH_BACKEND=postgres needs DATABASE_URL');

  const metricsToken = env.METRICS_TOKEN || undefined;
  if (metricsToken !== undefined && metricsToken.length < 16)
    p.add('METRICS_TOKEN must be at least 16 characters');
  const adminToken = env.ADMIN_TOKEN || undefined;
  if (adminToken !== undefined && adminToken.length < 16)
    p.add('ADMIN_TOKEN must be at least 16 characters');
  const adminTokensFile = env.ADMIN_TOKENS_FILE || undefined;
  const adminTokens = adminTokensFile ? loadAdminTokensFile(adminTokensFile, p) : [];
  if (adminToken !== undefined && adminTokens.some((t) => t.id === 'env'))
    p.add('ADMIN_TOKENS_FILE: token id "env" is reserved for ADMIN_TOKEN');

  const env_ = env.RAMPART_ENV || (env.NODE_ENV === 'production' ? 'prod' : 'dev');
  const service = env.RAMPART_SERVICE || 'rampart';
  for (const [name, v] of [
    ['RAMPART_ENV', env_],
    ['RAMPART_SERVICE', service],
  ] as const) {
    if (!/^[A-Za-z0-9_.-]{1,32}$/.test(v))
      p.add(`${name} must be 1-32 characters of [A-Za-z0-9_.-]`);
  }

  const config: RampartConfig = {
    env: env_,
    service,
    port: int(env, 'PORT', 3000, p, 0, 65535),
    host: env.HOST || '0.0.0.0',
    httpAdapter: oneOf(env, 'HTTP_ADAPTER', ADAPTERS, 'express', p),
    logLevel: oneOf(env, 'LOG_LEVEL', LOG_LEVELS, 'info', p),
    // Production logs are for collectors: JSON unless asked otherwise.
    logFormat: oneOf(
      env,
      'LOG_FORMAT',
      LOG_FORMATS,
      env.NODE_ENV === 'production' ? 'json' : 'auto',
      p,
    ),
    redis: redisSettings(env, p),
    adminToken,
    adminTokensFile,
    adminTokens,
    inference: inferenceSettings(env, p),
    search: {
      backend,
      databaseUrl,
      sqlitePath: env.SEARCH_SQLITE_PATH || 'data/search.sqlite',
    },
    rateLimitKeySecret,
    redisDataSecret,
    trustedProxies,
    corsOrigins,
    bodyLimitBytes: int(env, 'BODY_LIMIT_BYTES', 1_048_576, p, 1, 1_073_741_824),
    bodyMaxDepth: int(env, 'BODY_MAX_DEPTH', 64, p, 1, 1_000),
    server: serverLimits(env, p),
    shutdown: {
      delayMs: int(env, 'SHUTDOWN_DELAY_MS', 5_000, p, 0, 600_000),
      timeoutMs: int(env, 'SHUTDOWN_TIMEOUT_MS', 10_000, p, 100, 600_000),
    },
    appsFile: env.APPS_FILE || undefined,
    metricsToken,
    docsEnabled: bool(env, 'DOCS_ENABLED', env.NODE_ENV !== 'production', p),
    configFile,
    policies: mergePolicies(shipped, filePolicies, p),
    sections,
  };
  if (p.list.length > 0) throw new ConfigError(p.list);
  return config;
}
