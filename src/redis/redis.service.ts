import { Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { InjectConfig } from '../config/config.module.js';
import type { RampartConfig } from '../config/config.types.js';
import { MetricsService } from '../metrics/metrics.service.js';
import { RedisClient, createRedisClient, redisMode } from './redis.client.js';
import { RedisScriptError, RedisUnavailableError, isUnavailable } from './redis.errors.js';
import { LuaScript, loadLuaScripts } from './lua-scripts.js';
import { backstopMs, replyDeadline } from './reply-deadline.js';

type ScriptFn = (numKeys: number, ...args: (string | number | Buffer)[]) => Promise<unknown>;

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
  private readonly scriptErrors;
  private readonly latency;
  private readonly deadlineMs: number;

  constructor(
    @InjectConfig() private readonly config: RampartConfig,
    metrics: MetricsService,
  ) {
    // REDIS_COMMAND_TIMEOUT_MS is each call's reply deadline (replyDeadline, which a stalled event loop does
    // not trip); the client's own per-command timeout is only the backstop.
    this.deadlineMs = config.redis.commandTimeoutMs;
    this.client = createRedisClient(
      { ...config.redis, commandTimeoutMs: backstopMs(this.deadlineMs) },
      `${config.service}:${config.env}`,
    );
    this.scriptErrors = metrics.counter(
      'rampart_redis_errors_total',
      'Redis command failures by script and kind',
      ['script', 'kind'],
    );
    this.latency = metrics.histogram(
      'rampart_redis_script_seconds',
      'Lua script latency seen by the app',
      ['script'],
      [0.0002, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1],
    );
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
    // During an outage ioredis reports an error per reconnect attempt: log transitions, not every attempt.
    let down = false;
    this.client.on('error', (err: Error) => {
      if (!down) this.logger.warn(`redis error: ${err.message}`);
      down = true;
    });
    this.client.on('ready', () => {
      if (down) this.logger.log('redis connection is back');
      down = false;
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

  /** SCRIPT LOAD on every master, so the first calls are EVALSHA and a broken script stops the boot, named. */
  private async preload(): Promise<void> {
    const client = this.client!;
    const nodes = 'nodes' in client ? client.nodes('master') : [client];
    let all = true;
    for (const s of this.scripts.values()) {
      try {
        await Promise.all(nodes.map((n) => n.script('LOAD', s.source)));
      } catch (err) {
        if (isUnavailable(err)) {
          this.logger.warn(
            `could not preload lua/${s.name}.lua (${(err as Error).message}); it loads on first use`,
          );
          all = false;
          continue;
        }
        throw new RedisScriptError(s.name, (err as Error).message);
      }
    }
    if (all && nodes.length > 0) this.scriptsLoaded = true;
  }

  /**
   * Runs a Lua script by name (EVALSHA; ioredis reloads it on NOSCRIPT).
   * Availability problems become RedisUnavailableError, anything else a
   * RedisScriptError naming the script.
   */
  async script<T = unknown>(
    name: string,
    keys: readonly string[],
    args: readonly (string | number)[],
  ): Promise<T> {
    const fn = this.client ? (this.client as unknown as Record<string, ScriptFn>)[name] : undefined;
    if (!this.client) throw new RedisUnavailableError(name, 'redis is not configured');
    if (typeof fn !== 'function') throw new RedisScriptError(name, 'no such script under lua/');
    const t0 = performance.now();
    try {
      const call = fn.call(this.client, keys.length, ...keys, ...args) as Promise<T>;
      const out = await replyDeadline(call, this.deadlineMs, name);
      this.latency.observe({ script: name }, (performance.now() - t0) / 1000);
      return out;
    } catch (err) {
      throw this.wrap(name, err);
    }
  }

  /** Runs any client call with the same error mapping as `script`. */
  async run<T>(operation: string, fn: (client: RedisClient) => Promise<T>): Promise<T> {
    if (!this.client) throw new RedisUnavailableError(operation, 'redis is not configured');
    try {
      return await replyDeadline(fn(this.client), this.deadlineMs, operation);
    } catch (err) {
      throw this.wrap(operation, err);
    }
  }

  private wrap(name: string, err: unknown): Error {
    if (isUnavailable(err)) {
      this.scriptErrors.inc({ script: name, kind: 'unavailable' });
      return err instanceof RedisUnavailableError
        ? err
        : new RedisUnavailableError(name, (err as Error).message);
    }
    this.scriptErrors.inc({ script: name, kind: 'error' });
    return new RedisScriptError(name, (err as Error).message);
  }

  /** A separate connection for SUBSCRIBE (pub/sub cannot share the command connection). */
  subscriber(): RedisClient | undefined {
    if (!this.client) return undefined;
    // Subscriptions may be queued until connected and are re-established after a reconnect (ioredis autoResubscribe).
    const sub =
      'nodes' in this.client
        ? this.client.duplicate(undefined, { enableOfflineQueue: true, lazyConnect: false })
        : this.client.duplicate({
            enableOfflineQueue: true,
            lazyConnect: false,
            maxRetriesPerRequest: null,
          });
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
