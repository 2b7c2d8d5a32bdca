import type { Clock } from '../../../common/clock.js';
import type { RedisService } from '../../../redis/redis.service.js';
import { IdCipher } from '../id-cipher.js';

/** The calls a store needs (RedisService, or the sender's own connection OutboundRedis). */
export type Runner = Pick<RedisService, 'script' | 'run'>;

/**
 * What every piece of the Redis send gate (redis-send-gate.store.ts) shares: the connection, the key
 * schema (every key of one bot under the bot's hash tag `{<env>:<service>:bot:<id>}`), the clock and the
 * id cipher.
 */
export class RedisGateParts {
  constructor(
    readonly redis: Runner,
    readonly base: string,
    readonly clock: Clock,
    /** Chat ids in keys as keyed pseudonyms (docs/security.md#ids-in-redis). */
    readonly ids: IdCipher = IdCipher.from(undefined, undefined),
  ) {}

  key(bot: string, part: string): string {
    return `tgo:{${this.base}:bot:${bot}}:${part}`;
  }
}
