import type { RedisService } from '../../redis/redis.service.js';
import { OFFSET_TTL_MS, type PollStateStore } from './poll-state.store.js';

/**
 * The poll state in Redis, shared by every instance: `tg:{<env>:<service>}:poll:<bot>:lease` (the holder's
 * random poller id, PX the lease) and `…:offset` (PX a week). One script call per operation
 * (lua/telegram_poll_*.lua). No token, chat or user id in any key or value: the bot's configured id only.
 */
export class RedisPollStateStore implements PollStateStore {
  constructor(private readonly redis: RedisService) {}

  private keys(bot: string): [string, string] {
    const base = `tg:${this.redis.tag}:poll:${bot}`;
    return [`${base}:lease`, `${base}:offset`];
  }

  async lease(
    bot: string,
    poller: string,
    leaseMs: number,
  ): Promise<{ held: true; offset: number } | { held: false; retryMs: number }> {
    const [held, n] = await this.redis.script<[number, number]>(
      'telegram_poll_lease',
      this.keys(bot),
      [poller, leaseMs],
    );
    return held === 1 ? { held: true, offset: n } : { held: false, retryMs: Math.max(0, n) };
  }

  async commit(
    bot: string,
    poller: string,
    offset: number,
    leaseMs: number,
  ): Promise<number | undefined> {
    const out = await this.redis.script<number>('telegram_poll_commit', this.keys(bot), [
      poller,
      offset,
      leaseMs,
      OFFSET_TTL_MS,
    ]);
    return out < 0 ? undefined : out;
  }

  async release(bot: string, poller: string): Promise<void> {
    await this.redis.script('telegram_poll_release', [this.keys(bot)[0]], [poller]);
  }
}
