import type { AdminRedisCommands } from '../admin-redis.js';
import type { AdminBus } from '../admin-bus.js';
import type { AppDefinition, AppPutResult, AppStore, StoredApp } from './app-store.js';

/**
 * Apps in Redis: hash `cfg:{<env>:<service>}:apps` (app id → JSON
 * `{rev, definition}`), counter `…:apps:version`, channel `…:apps:changed`.
 * Writes run lua/admin_app_commit.lua. The hash holds signing secrets in
 * clear: protect Redis (ACL, TLS, no public bind).
 */
export class RedisAppStore implements AppStore {
  readonly kind = 'redis';
  private readonly key: string;

  constructor(
    private readonly redis: AdminRedisCommands,
    private readonly bus: AdminBus,
  ) {
    this.key = `cfg:${redis.tag}:apps`;
  }

  async version(): Promise<number> {
    const raw = await this.redis.run('admin.apps.version', (c) => c.get(`${this.key}:version`));
    return raw === null ? 0 : Number(raw);
  }

  async all(): Promise<Map<string, StoredApp>> {
    const raw = await this.redis.run('admin.apps.all', (c) => c.hgetall(this.key));
    return new Map(Object.entries(raw).map(([id, json]) => [id, JSON.parse(json) as StoredApp]));
  }

  async get(id: string): Promise<StoredApp | undefined> {
    const raw = await this.redis.run('admin.apps.get', (c) => c.hget(this.key, id));
    return raw === null ? undefined : (JSON.parse(raw) as StoredApp);
  }

  async put(expectedRev: number, definition: AppDefinition): Promise<AppPutResult> {
    const rev = expectedRev + 1;
    const [ok, n] = await this.redis.script<[number, number]>(
      'admin_app_commit',
      [this.key, `${this.key}:version`],
      [definition.id, expectedRev, JSON.stringify({ rev, definition }), `${this.key}:changed`],
    );
    return ok === 1 ? { ok: true, rev, version: n } : { ok: false, rev: n };
  }

  watch(listener: (version: number) => void): Promise<() => void> {
    return this.bus.on(`${this.key}:changed`, (message) => listener(Number(message)));
  }
}
