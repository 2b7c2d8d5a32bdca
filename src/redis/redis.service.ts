import { Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { InjectConfig } from '../config/config.module.js';
import type { RampartConfig } from '../config/config.types.js';
import { MetricsService } from '../metrics/metrics.service.js';
import { RedisClient, createRedisClient, redisMode, subscriberClient } from './redis.client.js';
import { RedisCalls } from './redis-calls.js';
import { logTransitions } from './connection-log.js';
import { LuaScript, loadLuaScripts } from './lua-scripts.js';
import { preloadScripts } from './script-preload.js';
import { backstopMs } from './reply-deadline.js';

/**
 * The one Redis connection of the service (standalone or Cluster) and the
 * Lua scripts under `lua/`. With no Redis configured, `enabled` is false and
 * every lock uses its memory store.
 */
@Injectable()
export class RedisService implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('Redis');
  readonly client: RedisClient | undefined;
  readonly scripts = new Map<string, LuaScript>();
  private readonly subscribers: RedisClient[] = [];
  /** True once every script was loaded on every master (SCRIPT LOAD); retried on each reconnect until then. */
  scriptsLoaded = false;
  private readonly calls: RedisCalls;

  constructor(
    @InjectConfig() private readonly config: RampartConfig,
    metrics: MetricsService,
  ) {
    // REDIS_COMMAND_TIMEOUT_MS is each call's reply deadline (replyDeadline, which a stalled event loop does
    // not trip); the client's own per-command timeout is only the backstop.
    const deadlineMs = config.redis.commandTimeoutMs;
    this.client = createRedisClient(
      { ...config.redis, commandTimeoutMs: backstopMs(deadlineMs) },
      `${config.service}:${config.env}`,
    );
    this.calls = new RedisCalls(this.client, deadlineMs, metrics);
  }

  /** True when Redis is configured (whether or not it is reachable right now). */
  get enabled(): boolean {
    return this.client !== undefined;
  }

  /** `cluster`, `sentinel`, `standalone` or `none`. */
  get mode(): ReturnType<typeof redisMode> {
    return redisMode(this.config.redis);
  }

  /** True when the connection is up and ready for commands. */
  get ready(): boolean {
    return this.client?.status === 'ready';
  }

  /** Key prefix part `{<env>:<service>}`: the hash tag that keeps one request's keys in one Cluster slot. */
  get tag(): string {
    return `{${this.config.env}:${this.config.service}}`;
  }

  async onModuleInit(): Promise<void> {
    for (const s of loadLuaScripts()) {
      this.scripts.set(s.name, s);
      this.client?.defineCommand(s.name, { lua: s.source });
    }
    if (!this.client) {
      this.logger.warn(
        'no REDIS_URL / REDIS_CLUSTER_NODES / REDIS_SENTINELS: running on in-process memory stores; state is NOT shared between instances',
      );
      return;
    }
    logTransitions(this.client, this.logger, () => {
      if (!this.scriptsLoaded) void this.preload().catch(() => undefined);
    });
    try {
      await this.client.connect();
    } catch (err) {
      // Boot goes on: each lock has a written decision for an unreachable Redis, and ioredis keeps reconnecting.
      this.logger.warn(
        `redis not reachable at boot (${(err as Error).message}); locks apply their failure modes until it is`,
      );
      return;
    }
    await this.preload();
    this.logger.log(`connected (${this.mode}), ${this.scripts.size} lua scripts loaded`);
  }

  /** SCRIPT LOAD on every master (preloadScripts); retried on each reconnect until every script is in. */
  private async preload(): Promise<void> {
    if (await preloadScripts(this.client!, this.scripts.values(), this.logger))
      this.scriptsLoaded = true;
  }

  /**
   * Runs a Lua script by name (EVALSHA; ioredis reloads it on NOSCRIPT).
   * Availability problems become RedisUnavailableError, anything else a
   * RedisScriptError naming the script.
   */
  script<T = unknown>(
    name: string,
    keys: readonly string[],
    args: readonly (string | number)[],
  ): Promise<T> {
    return this.calls.script<T>(name, keys, args);
  }

  /** Runs any client call with the same error mapping as `script`. */
  run<T>(operation: string, fn: (client: RedisClient) => Promise<T>): Promise<T> {
    return this.calls.run(operation, fn);
  }

  /** A separate connection for SUBSCRIBE (pub/sub cannot share the command connection). */
  subscriber(): RedisClient | undefined {
    if (!this.client) return undefined;
    const sub = subscriberClient(this.client);
    sub.on('error', (err: Error) => this.logger.warn(`redis subscriber error: ${err.message}`));
    this.subscribers.push(sub);
    return sub;
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.allSettled(
      [...this.subscribers, ...(this.client ? [this.client] : [])].map((c) =>
        c.quit().catch(() => c.disconnect()),
      ),
    );
  }
}
