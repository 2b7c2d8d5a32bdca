import type { AdminBus } from '../admin-bus.js';
import type { AdminRedisCommands } from '../admin-redis.js';
import type { BanAddResult, BanStore, StoredBan } from './ban-store.js';

/**
 * Bans in Redis: hash `cfg:{<env>:<service>}:bans` (ban id → JSON StoredBan, subjects as the
 * lock's key parts: keyed hashes for users, chats and IPs), counter `…:bans:version`, channel
 * `…:bans:changed`. Writes run lua/admin_ban_commit.lua; the hash expires after its last ban.
 */
export class RedisBanStore implements BanStore {
  readonly kind = 'redis';
  private readonly key: string;

  constructor(
    private readonly redis: AdminRedisCommands,
    private readonly bus: AdminBus,
  ) {
    this.key = `cfg:${redis.tag}:bans`;
  }

  async version(): Promise<number> {
    const raw = await this.redis.run('admin.bans.version', (c) => c.get(`${this.key}:version`));
    return raw === null ? 0 : Number(raw);
  }

  async all(): Promise<StoredBan[]> {
    const raw = await this.redis.run('admin.bans.all', (c) => c.hgetall(this.key));
    return Object.values(raw).map((json) => JSON.parse(json) as StoredBan);
  }

  async add(ban: StoredBan, max: number, nowMs: number): Promise<BanAddResult> {
    const [ok, n] = await this.commit(['add', ban.id, JSON.stringify(ban), max, Math.floor(nowMs)]);
    return ok === 1 ? { ok: true, version: Number(n) } : { ok: false, held: Number(n) };
  }

  async remove(id: string): Promise<{ removed: StoredBan | undefined; version: number }> {
    const [ok, n, old] = await this.commit(['del', id, '', 0, 0]);
    return {
      removed: ok === 1 && old ? (JSON.parse(String(old)) as StoredBan) : undefined,
      version: Number(n),
    };
  }

  watch(listener: (version: number) => void): Promise<() => void> {
    return this.bus.on(`${this.key}:changed`, (message) => listener(Number(message)));
  }

  private commit(args: (string | number)[]): Promise<(number | string)[]> {
    return this.redis.script<(number | string)[]>(
      'admin_ban_commit',
      [this.key, `${this.key}:version`],
      [...args, `${this.key}:changed`],
    );
  }
}
