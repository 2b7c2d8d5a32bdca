import { Cluster, Redis, RedisOptions } from 'ioredis';
import type { RedisConfig } from '../config/config.types.js';

export type RedisClient = Redis | Cluster;

/**
 * Client settings for a limiter, not a cache: no offline queue (a command
 * while disconnected fails at once), a short command timeout, no retry or
 * replay of a command after a reconnect, and reconnects that back off to a
 * bounded delay. ioredis defaults would turn an outage into 8–30 s hangs and
 * double counting.
 */
export function limiterOptions(cfg: RedisConfig): RedisOptions {
  return {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    autoResendUnfulfilledCommands: false,
    commandTimeout: cfg.commandTimeoutMs,
    connectTimeout: cfg.connectTimeoutMs,
    enableReadyCheck: true,
    lazyConnect: true,
    retryStrategy: (attempt: number) =>
      Math.min(cfg.maxReconnectDelayMs, 50 * 2 ** Math.min(attempt, 10)),
    // A demoted primary answers READONLY: reconnect (Sentinel: to the new primary) without replaying the command.
    reconnectOnError: (err: Error) => (err.message.startsWith('READONLY') ? 1 : false),
  };
}

/** Creates (without connecting) a standalone or Cluster client from the configuration; undefined when Redis is not configured. */
export function createRedisClient(cfg: RedisConfig, name: string): RedisClient | undefined {
  const base = limiterOptions(cfg);
  if (cfg.clusterNodes.length > 0) {
    const tls = cfg.url?.startsWith('rediss:') ? {} : undefined;
    return new Cluster(cfg.clusterNodes, {
      enableOfflineQueue: false,
      lazyConnect: true,
      scaleReads: 'master',
      maxRedirections: 4,
      retryDelayOnFailover: 50,
      retryDelayOnClusterDown: 50,
      retryDelayOnTryAgain: 50,
      slotsRefreshTimeout: cfg.connectTimeoutMs,
      clusterRetryStrategy: (attempt: number) =>
        Math.min(cfg.maxReconnectDelayMs, 50 * 2 ** Math.min(attempt, 10)),
      redisOptions: { ...base, connectionName: name, ...(tls ? { tls } : {}) },
    });
  }
  if (cfg.sentinels.length > 0) return sentinelClient(cfg, base, name);
  if (!cfg.url) return undefined;
  return new Redis(cfg.url, { ...base, connectionName: name });
}

/** Which kind of Redis the configuration names (Cluster wins, then Sentinel). */
export function redisMode(cfg: RedisConfig): 'cluster' | 'sentinel' | 'standalone' | 'none' {
  if (cfg.clusterNodes.length > 0) return 'cluster';
  if (cfg.sentinels.length > 0) return 'sentinel';
  return cfg.url ? 'standalone' : 'none';
}

/**
 * A client of the primary the Sentinels name (ioredis native Sentinel
 * support): asks a Sentinel for the primary at each (re)connect, and with
 * `failoverDetector` follows a `+switch-master` at once instead of waiting
 * for the old primary's connection to fail. REDIS_URL, when set alongside,
 * gives the primary's password, user, db and TLS.
 */
function sentinelClient(cfg: RedisConfig, base: RedisOptions, name: string): Redis {
  const u = cfg.url ? new URL(cfg.url) : undefined;
  return new Redis({
    ...base,
    connectionName: name,
    sentinels: cfg.sentinels,
    name: cfg.sentinelName,
    sentinelPassword: cfg.sentinelPassword,
    password: u?.password ? decodeURIComponent(u.password) : undefined,
    username: u?.username ? decodeURIComponent(u.username) : undefined,
    db: u && u.pathname.length > 1 ? Number(u.pathname.slice(1)) : 0,
    ...(u?.protocol === 'rediss:' ? { tls: {}, enableTLSForSentinelMode: true } : {}),
    sentinelRetryStrategy: (attempt: number) =>
      Math.min(cfg.maxReconnectDelayMs, 50 * 2 ** Math.min(attempt, 10)),
    failoverDetector: true,
    role: 'master',
  });
}

/**
 * A separate connection for SUBSCRIBE (pub/sub cannot share the command connection). Subscriptions may
 * be queued until connected and are re-established after a reconnect (ioredis autoResubscribe).
 */
export function subscriberClient(client: RedisClient): RedisClient {
  return 'nodes' in client
    ? client.duplicate(undefined, { enableOfflineQueue: true, lazyConnect: false })
    : client.duplicate({
        enableOfflineQueue: true,
        lazyConnect: false,
        maxRetriesPerRequest: null,
      });
}
