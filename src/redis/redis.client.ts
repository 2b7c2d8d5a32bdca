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
    reconnectOnError: () => false,
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
  if (!cfg.url) return undefined;
  return new Redis(cfg.url, { ...base, connectionName: name });
}
