import type { LockSlice, RoutePolicy } from './policy.types.js';
import { LOCK_MODES } from './policy.types.js';
import type { HttpAdapterName } from '../http/http-adapters.js';
import type { LogLevel } from '../logging/logger.js';
import { LOG_FORMATS } from '../logging/log-format.js';
import type { RampartConfig, RedisNode, SearchBackendName } from './config.types.js';
import { ConfigError } from './config.error.js';
import { isValidCidr } from '../http/cidr.js';
import { loadAdminTokensFile } from './admin-tokens-file.js';
import { readDataFile } from './data-file.js';
import { isRecord } from '../common/is-record.js';

type Env = Record<string, string | undefined>;

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

/** Collects every problem instead of stopping at the first one. */
class Problems {
  readonly list: string[] = [];
  add(message: string): void {
    this.list.push(message);
  }
}

function int(
  env: Env,
  name: string,
  fallback: number,
  p: Problems,
  min = 0,
  max = Number.MAX_SAFE_INTEGER,
): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) {
    p.add(`${name} must be an integer between ${min} and ${max} (got "${raw}")`);
    return fallback;
  }
  return n;
}

function oneOf<T extends string>(
  env: Env,
  name: string,
  allowed: readonly T[],
  fallback: T,
  p: Problems,
): T {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const v = raw.toLowerCase() as T;
  if (!allowed.includes(v)) {
    p.add(`${name} must be one of ${allowed.join(', ')} (got "${raw}")`);
    return fallback;
  }
  return v;
}

function bool(env: Env, name: string, fallback: boolean, p: Problems): boolean {
  const raw = env[name]?.trim().toLowerCase();
  if (raw === undefined || raw === '') return fallback;
  if (['true', '1', 'on', 'yes'].includes(raw)) return true;
  if (['false', '0', 'off', 'no'].includes(raw)) return false;
  p.add(`${name} must be true or false (got "${env[name]}")`);
  return fallback;
}

function list(env: Env, name: string): string[] {
  const raw = env[name];
  if (!raw) return [];
  return raw
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

function url(
  env: Env,
  name: string,
  protocols: readonly string[],
  p: Problems,
): string | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  try {
    const u = new URL(raw);
    if (!protocols.includes(u.protocol)) {
      p.add(`${name} must use ${protocols.join(' or ')} (got "${u.protocol}")`);
      return undefined;
    }
    return raw;
  } catch {
    p.add(`${name} is not a valid URL`);
    return undefined;
  }
}

function hostPorts(env: Env, name: string, p: Problems): RedisNode[] {
  return list(env, name).flatMap((entry) => {
    const m = /^([^:]+):(\d{1,5})$/.exec(entry);
    if (!m || Number(m[2]) > 65535) {
      p.add(`${name} entries must be host:port (got "${entry}")`);
      return [];
    }
    return [{ host: m[1]!, port: Number(m[2]) }];
  });
}

/** Merges policies from the config file over the defaults: per policy, per lock slice, option by option. */
function mergePolicies(
  base: Record<string, RoutePolicy>,
  override: unknown,
  p: Problems,
): Record<string, RoutePolicy> {
  const out: Record<string, RoutePolicy> = structuredClone(base);
  if (override === undefined) return out;
  if (!isRecord(override)) {
    p.add('CONFIG_FILE: "policies" must be a map of policy name to policy');
    return out;
  }
  for (const [name, raw] of Object.entries(override)) {
    if (!/^[a-z][a-z0-9-]{0,62}$/.test(name)) {
      p.add(`CONFIG_FILE: policy name "${name}" must match [a-z][a-z0-9-]*`);
      continue;
    }
    if (!isRecord(raw)) {
      p.add(`CONFIG_FILE: policy "${name}" must be an object`);
      continue;
    }
    const target: RoutePolicy = out[name] ?? { locks: {} };
    if (raw.description !== undefined) target.description = String(raw.description);
    if (raw.critical !== undefined) {
      if (typeof raw.critical !== 'boolean')
        p.add(`CONFIG_FILE: policies.${name}.critical must be true or false`);
      else target.critical = raw.critical;
    }
    if (raw.locks !== undefined) {
      if (!isRecord(raw.locks)) {
        p.add(`CONFIG_FILE: policies.${name}.locks must be a map of lock name to options`);
      } else {
        for (const [lock, slice] of Object.entries(raw.locks)) {
          if (!isRecord(slice)) {
            p.add(`CONFIG_FILE: policies.${name}.locks.${lock} must be an object`);
            continue;
          }
          const merged = { ...(target.locks[lock] ?? { mode: 'off' }), ...slice } as LockSlice;
          if (!LOCK_MODES.includes(merged.mode)) {
            p.add(
              `CONFIG_FILE: policies.${name}.locks.${lock}.mode must be one of ${LOCK_MODES.join(', ')}`,
            );
          }
          target.locks[lock] = merged;
        }
      }
    }
    out[name] = target;
  }
  return out;
}

function serverLimits(env: Env, p: Problems): RampartConfig['server'] {
  const limits = {
    headersTimeoutMs: int(env, 'HTTP_HEADERS_TIMEOUT_MS', 10_000, p, 100, 600_000),
    requestTimeoutMs: int(env, 'HTTP_REQUEST_TIMEOUT_MS', 30_000, p, 100, 3_600_000),
    bodyIdleTimeoutMs: int(env, 'HTTP_BODY_IDLE_TIMEOUT_MS', 10_000, p, 100, 600_000),
    keepAliveTimeoutMs: int(env, 'HTTP_KEEP_ALIVE_TIMEOUT_MS', 5_000, p, 100, 600_000),
    maxConnections: int(env, 'HTTP_MAX_CONNECTIONS', 10_000, p, 1, 1_000_000),
  };
  if (limits.headersTimeoutMs > limits.requestTimeoutMs) {
    p.add('HTTP_HEADERS_TIMEOUT_MS must not be greater than HTTP_REQUEST_TIMEOUT_MS');
  }
  return limits;
}

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
    redis: {
      url: url(env, 'REDIS_URL', ['redis:', 'rediss:'], p),
      clusterNodes: hostPorts(env, 'REDIS_CLUSTER_NODES', p),
      sentinels: hostPorts(env, 'REDIS_SENTINELS', p),
      sentinelName: env.REDIS_SENTINEL_NAME || 'mymaster',
      sentinelPassword: env.REDIS_SENTINEL_PASSWORD || undefined,
      commandTimeoutMs: int(env, 'REDIS_COMMAND_TIMEOUT_MS', 50, p, 1, 60_000),
      connectTimeoutMs: int(env, 'REDIS_CONNECT_TIMEOUT_MS', 500, p, 1, 60_000),
      maxReconnectDelayMs: int(env, 'REDIS_MAX_RECONNECT_DELAY_MS', 2_000, p, 10, 60_000),
    },
    adminToken,
    adminTokensFile,
    adminTokens,
    inference: {
      upstreamUrl: url(env, 'INFERENCE_UPSTREAM_URL', ['http:', 'https:'], p),
      upstreamApiKey: env.INFERENCE_UPSTREAM_API_KEY || undefined,
      upstreamTimeoutMs: int(env, 'INFERENCE_UPSTREAM_TIMEOUT_MS', 30_000, p, 1, 600_000),
      tokenSafetyPercent: int(env, 'INFERENCE_TOKEN_SAFETY_PERCENT', 110, p, 100, 400),
      cache: { chargeTokens: bool(env, 'INFERENCE_CHARGE_CACHED_TOKENS', false, p) },
      stream: {
        maxDurationMs: int(env, 'INFERENCE_STREAM_MAX_DURATION_MS', 300_000, p, 100, 86_400_000),
        drainTimeoutMs: int(env, 'INFERENCE_STREAM_DRAIN_TIMEOUT_MS', 30_000, p, 100, 600_000),
        relayBytes: int(env, 'INFERENCE_STREAM_RELAY_BYTES', 1_048_576, p, 0, 67_108_864),
      },
    },
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
