import { Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { InjectConfig } from '../../config/config.module.js';
import type { RampartConfig } from '../../config/config.types.js';
import { RedisClient, createRedisClient } from '../../redis/redis.client.js';
import {
  RedisScriptError,
  RedisUnavailableError,
  isUnavailable,
} from '../../redis/redis.errors.js';
import { loadLuaScripts } from '../../redis/lua-scripts.js';

type ScriptFn = (numKeys: number, ...args: (string | number)[]) => Promise<unknown>;

/** Milliseconds a queue command may take: a settle that times out after a send would cost a job. */
const QUEUE_COMMAND_TIMEOUT_MS = 5_000;

/**
 * The sender's own Redis connection. The service's connection is set up for
 * the request path (command timeouts in tens of milliseconds, no offline
 * queue); the workers' claims and settles are background traffic that must
 * neither delay a lock's decision nor be cut off after tens of milliseconds,
 * so they go through this second connection with a longer timeout.
 */
@Injectable()
export class OutboundRedis implements OnModuleInit, OnApplicationShutdown {
  private readonly log = new Logger('TelegramOutbound');
  readonly client: RedisClient | undefined;

  constructor(@InjectConfig() config: RampartConfig) {
    this.client = createRedisClient(
      {
        ...config.redis,
        commandTimeoutMs: Math.max(config.redis.commandTimeoutMs, QUEUE_COMMAND_TIMEOUT_MS),
      },
      `${config.service}:${config.env}:telegram-outbound`,
    );
    for (const s of loadLuaScripts()) this.client?.defineCommand(s.name, { lua: s.source });
  }

  get enabled(): boolean {
    return this.client !== undefined;
  }

  async onModuleInit(): Promise<void> {
    this.client?.on('error', () => undefined);
    await this.client
      ?.connect()
      .catch((e: Error) => this.log.warn(`redis not reachable yet: ${e.message}`));
  }

  async script<T = unknown>(
    name: string,
    keys: readonly string[],
    args: readonly (string | number)[],
  ): Promise<T> {
    const fn = this.client && (this.client as unknown as Record<string, ScriptFn>)[name];
    if (!fn) throw new RedisUnavailableError(name, 'redis is not configured');
    try {
      return (await fn.call(this.client, keys.length, ...keys, ...args)) as T;
    } catch (err) {
      throw isUnavailable(err)
        ? new RedisUnavailableError(name, (err as Error).message)
        : new RedisScriptError(name, (err as Error).message);
    }
  }

  async run<T>(operation: string, fn: (client: RedisClient) => Promise<T>): Promise<T> {
    if (!this.client) throw new RedisUnavailableError(operation, 'redis is not configured');
    try {
      return await fn(this.client);
    } catch (err) {
      throw isUnavailable(err)
        ? new RedisUnavailableError(operation, (err as Error).message)
        : new RedisScriptError(operation, (err as Error).message);
    }
  }

  async onApplicationShutdown(): Promise<void> {
    await this.client?.quit().catch(() => this.client?.disconnect());
  }
}
