import type { RedisService } from '../../../redis/redis.service.js';
import { IdCipher } from '../id-cipher.js';
import type { ChatMigrationStore } from './chat-migration.store.js';

type Runner = Pick<RedisService, 'run'>;

/**
 * Moves in Redis: one key per app × old chat, `tgo:{<env>:<service>:mig:<app>:<pseudonym>}` (its own hash
 * tag: single-key commands, any Cluster slot), holding the new id sealed (AES-GCM, id-cipher.ts), with a
 * TTL. A single SET / GET each: nothing to make atomic, so no script.
 */
export class RedisChatMigrationStore implements ChatMigrationStore {
  constructor(
    private readonly redis: Runner,
    private readonly base: string,
    private readonly ids: IdCipher = IdCipher.from(undefined, undefined),
  ) {}

  private key(app: string, chatId: string): string {
    return `tgo:{${this.base}:mig:${encodeURIComponent(app)}:${this.ids.pseudonym(chatId)}}`;
  }

  async get(app: string, chatId: string): Promise<string | undefined> {
    const v = await this.redis.run('telegram.migration', (c) => c.get(this.key(app, chatId)));
    return v === null ? undefined : this.ids.open(v);
  }

  async set(app: string, chatId: string, to: string, ttlMs: number): Promise<void> {
    await this.redis.run('telegram.migration', (c) =>
      c.set(this.key(app, chatId), this.ids.seal(to), 'PX', ttlMs),
    );
  }
}
