import { Injectable, Logger } from '@nestjs/common';
import { RedisService } from '../redis/redis.service.js';
import type { RedisClient } from '../redis/redis.client.js';

/**
 * One Redis pub/sub connection for the admin announcements (policy versions,
 * app changes). Announcements are hints: a lost one is caught by the
 * periodic version check of each sync service.
 */
@Injectable()
export class AdminBus {
  private readonly logger = new Logger('AdminBus');
  private sub: RedisClient | undefined;
  private readonly handlers = new Map<string, Set<(message: string) => void>>();

  constructor(private readonly redis: RedisService) {}

  /** Calls `handler` with each message published on `channel`; returns unsubscribe. No-op without Redis. */
  on(channel: string, handler: (message: string) => void): () => void {
    const sub = this.connection();
    if (!sub) return () => undefined;
    let set = this.handlers.get(channel);
    if (!set) {
      this.handlers.set(channel, (set = new Set()));
      sub.subscribe(channel).catch((err: Error) => this.logger.warn(`subscribe ${channel} failed: ${err.message} (periodic checks still run)`));
    }
    set.add(handler);
    return () => set.delete(handler);
  }

  private connection(): RedisClient | undefined {
    if (this.sub || !this.redis.enabled) return this.sub;
    this.sub = this.redis.subscriber();
    this.sub?.on('message', (channel: string, message: string) => {
      for (const h of this.handlers.get(channel) ?? []) h(message);
    });
    return this.sub;
  }
}
