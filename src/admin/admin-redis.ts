import { Inject, Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { InjectConfig } from '../config/config.module.js';
import type { RampartConfig } from '../config/config.types.js';
import { RedisClient, createRedisClient } from '../redis/redis.client.js';
import { RedisScriptError, RedisUnavailableError, isUnavailable } from '../redis/redis.errors.js';
import { loadLuaScripts } from '../redis/lua-scripts.js';
import { RedisService } from '../redis/redis.service.js';
import { ADMIN_SETTINGS, AdminSettings } from './admin-settings.js';

/** What the admin Redis stores need: the key hash tag, plain commands and the admin Lua scripts. */
export interface AdminRedisCommands {
  readonly tag: string;
  run<T>(operation: string, fn: (client: RedisClient) => Promise<T>): Promise<T>;
  script<T = unknown>(
    name: string,
    keys: readonly string[],
    args: readonly (string | number)[],
  ): Promise<T>;
}

type ScriptFn = (numKeys: number, ...args: (string | number)[]) => Promise<unknown>;

/**
 * A Redis connection of its own for the admin control plane. The shared
 * connection is tuned for the limiter's hot path (a command timeout of tens
 * of milliseconds); admin reads and writes move whole policy sets, must not
 * fail just because an instance is busy, and must not queue behind — or in
 * front of — the limiter's commands. Same client rules otherwise (no offline
 * queue, no replay after a reconnect).
 */
@Injectable()
export class AdminRedis implements AdminRedisCommands, OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('AdminRedis');
  private client: RedisClient | undefined;

  constructor(
    @InjectConfig() private readonly config: RampartConfig,
    private readonly redis: RedisService,
    @Inject(ADMIN_SETTINGS) private readonly settings: AdminSettings,
  ) {}

  get tag(): string {
    return this.redis.tag;
  }

  async onModuleInit(): Promise<void> {
    if (!this.redis.enabled) return;
    const cfg = { ...this.config.redis, commandTimeoutMs: this.settings.redisTimeoutMs };
    this.client = createRedisClient(cfg, `${this.config.service}:${this.config.env}:admin`);
    if (!this.client) return;
    for (const s of loadLuaScripts().filter((x) => x.name.startsWith('admin_')))
      this.client.defineCommand(s.name, { lua: s.source });
    this.client.on('error', () => undefined); // the shared connection logs outages; admin calls fail typed
    try {
      await this.client.connect();
    } catch (err) {
      this.logger.warn(
        `admin connection not up at boot (${(err as Error).message}); admin changes answer 503 until it is`,
      );
    }
  }

  async run<T>(operation: string, fn: (client: RedisClient) => Promise<T>): Promise<T> {
    if (!this.client) throw new RedisUnavailableError(operation, 'redis is not configured');
    try {
      return await fn(this.client);
    } catch (err) {
      throw wrap(operation, err);
    }
  }

  async script<T = unknown>(
    name: string,
    keys: readonly string[],
    args: readonly (string | number)[],
  ): Promise<T> {
    return this.run(name, (c) => {
      const fn = (c as unknown as Record<string, ScriptFn>)[name];
      if (typeof fn !== 'function')
        throw new RedisScriptError(name, 'no such admin script under lua/');
      return fn.call(c, keys.length, ...keys, ...args) as Promise<T>;
    });
  }

  async onApplicationShutdown(): Promise<void> {
    await this.client?.quit().catch(() => this.client?.disconnect());
  }
}

function wrap(name: string, err: unknown): Error {
  if (err instanceof RedisUnavailableError || err instanceof RedisScriptError) return err;
  if (isUnavailable(err)) return new RedisUnavailableError(name, (err as Error).message);
  return new RedisScriptError(name, (err as Error).message);
}
