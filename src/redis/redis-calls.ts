import type { MetricsService } from '../metrics/metrics.service.js';
import type { RedisClient } from './redis.client.js';
import { RedisScriptError, RedisUnavailableError, redisErrorOf } from './redis.errors.js';
import { redisMetrics } from './redis.metrics.js';
import { replyDeadline } from './reply-deadline.js';

type ScriptFn = (numKeys: number, ...args: (string | number | Buffer)[]) => Promise<unknown>;

/**
 * The call path of RedisService: a Lua script by name, or any client call, each under the reply
 * deadline. Failures are counted by script and kind and mapped by redisErrorOf (availability →
 * RedisUnavailableError, anything else → RedisScriptError naming the call).
 */
export class RedisCalls {
  private readonly errors;
  private readonly latency;

  constructor(
    private readonly client: RedisClient | undefined,
    private readonly deadlineMs: number,
    metrics: MetricsService,
  ) {
    const series = redisMetrics(metrics);
    this.errors = series.errors;
    this.latency = series.latency;
  }

  async script<T>(
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

  async run<T>(operation: string, fn: (client: RedisClient) => Promise<T>): Promise<T> {
    if (!this.client) throw new RedisUnavailableError(operation, 'redis is not configured');
    try {
      return await replyDeadline(fn(this.client), this.deadlineMs, operation);
    } catch (err) {
      throw this.wrap(operation, err);
    }
  }

  private wrap(name: string, err: unknown): Error {
    const { kind, error } = redisErrorOf(name, err);
    this.errors.inc({ script: name, kind });
    return error;
  }
}
