import { Logger } from '@nestjs/common';
import type { RedisService } from '../../../redis/redis.service.js';
import type { BloomEvent } from './bloom-store.js';

/**
 * The Redis store's announcements: one pub/sub channel on which the Lua
 * scripts publish every activation and add. A reconnect becomes a `resync`
 * event (messages published while the subscriber was away are lost).
 */
export class RedisBloomEvents {
  private readonly logger = new Logger('CacheShield');
  private readonly listeners = new Set<(e: BloomEvent) => void>();
  private subscribed?: Promise<void>;

  constructor(
    private readonly redis: RedisService,
    private readonly channel: string,
  ) {}

  async subscribe(listener: (event: BloomEvent) => void): Promise<() => void> {
    this.listeners.add(listener);
    this.subscribed ??= this.listen();
    await this.subscribed;
    return () => this.listeners.delete(listener);
  }

  private async listen(): Promise<void> {
    const sub = this.redis.subscriber();
    if (!sub) return;
    let first = true;
    sub.on('ready', () => {
      // Messages published while the subscriber was away are lost: every instance re-reads the pointers.
      if (!first) this.emit({ type: 'resync' });
      first = false;
    });
    sub.on('message', (channel: string, message: string) => {
      if (channel !== this.channel) return;
      try {
        this.emit(JSON.parse(message) as BloomEvent);
      } catch (err) {
        this.logger.warn(`ignoring a malformed bloom announcement: ${(err as Error).message}`);
      }
    });
    // While Redis is unreachable the subscription waits in the subscriber's queue; boot does not wait for it.
    const done = sub.subscribe(this.channel).then(
      () => undefined,
      (err: Error) => this.logger.warn(`bloom announcements: subscribe failed (${err.message})`),
    );
    await Promise.race([done, new Promise((r) => setTimeout(r, 2_000).unref())]);
  }

  private emit(event: BloomEvent): void {
    for (const l of this.listeners) l(event);
  }
}
