import { Injectable, Logger } from '@nestjs/common';
import { RedisService } from './redis.service.js';
import type { RedisClient } from './redis.client.js';

/**
 * The service's one Redis pub/sub connection: admin announcements (policy
 * versions, apps, bans) and the outbound queue's wake-ups. A subscribed,
 * idle connection sends Redis nothing. Messages are hints: a lost one is
 * caught by each listener's slow safety check. Channels are not keys, so
 * this works the same on Redis Cluster (PUBLISH reaches every node) and
 * behind Sentinel (the duplicate connection follows the master).
 */
@Injectable()
export class RedisBus {
  private readonly logger = new Logger('RedisBus');
  private sub: RedisClient | undefined;
  private readonly handlers = new Map<string, Set<(message: string) => void>>();
  private readonly subscribed = new Map<string, Promise<void>>();

  constructor(private readonly redis: RedisService) {}

  /**
   * Calls `handler` with each message published on `channel`, and with `''`
   * when the connection is back after a drop (messages published meanwhile
   * were lost: a handler re-reads what it follows). Resolves with
   * the unsubscribe function once the subscription is live (or after
   * `timeoutMs` if Redis does not confirm it: announcements then start when
   * it does, and the periodic checks cover the gap). No-op without Redis.
   */
  async on(
    channel: string,
    handler: (message: string) => void,
    timeoutMs = 2_000,
  ): Promise<() => void> {
    // Redis down at boot: do not hold the boot up; the subscription starts when Redis is back.
    if (!this.redis.ready) timeoutMs = 0;
    const sub = this.connection();
    if (!sub) return () => undefined;
    let set = this.handlers.get(channel);
    if (!set) {
      this.handlers.set(channel, (set = new Set()));
      this.subscribed.set(
        channel,
        sub.subscribe(channel).then(
          () => undefined,
          (err: Error) =>
            this.logger.warn(
              `subscribe ${channel} failed: ${err.message} (periodic checks still run)`,
            ),
        ),
      );
    }
    set.add(handler);
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      this.subscribed.get(channel),
      new Promise((r) => (timer = setTimeout(r, timeoutMs))),
    ]);
    clearTimeout(timer);
    return () => set.delete(handler);
  }

  /**
   * Resolves once Redis acknowledged the SUBSCRIBE of `channel` (or refused it: logged), with no timeout, unlike
   * `on`: a message published before that reaches no one here. At once for a channel never subscribed.
   */
  confirmed(channel: string): Promise<void> {
    return this.subscribed.get(channel) ?? Promise.resolve();
  }

  private connection(): RedisClient | undefined {
    if (this.sub || !this.redis.enabled) return this.sub;
    this.sub = this.redis.subscriber();
    this.sub?.on('message', (channel: string, message: string) => {
      for (const h of this.handlers.get(channel) ?? []) h(message);
    });
    let readyBefore = false;
    this.sub?.on('ready', () => {
      if (readyBefore) for (const set of this.handlers.values()) for (const h of set) h('');
      readyBefore = true;
    });
    return this.sub;
  }
}
