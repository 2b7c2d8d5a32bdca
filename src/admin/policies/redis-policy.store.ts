import type { AdminRedisCommands } from '../admin-redis.js';
import type { AdminBus } from '../admin-bus.js';
import type {
  CommitResult,
  PolicyStore,
  PolicyVersion,
  PolicyVersionMeta,
} from './policy-store.js';

/**
 * Policy versions in Redis, shared by every instance:
 * `cfg:{<env>:<service>}:policies:active` (active version, INCR counter),
 * `…:policies:v:<n>` (one JSON per version), `…:policies:meta` (history
 * hash) and the channel `…:policies:changed`. Commits run lua/admin_policy_commit.lua.
 */
export class RedisPolicyStore implements PolicyStore {
  readonly kind = 'redis';
  private readonly prefix: string;

  /** @param historyLimit versions kept (older ones are deleted). */
  constructor(
    private readonly redis: AdminRedisCommands,
    private readonly bus: AdminBus,
    private readonly historyLimit: number,
  ) {
    this.prefix = `cfg:${redis.tag}:policies`;
  }

  private get channel(): string {
    return `${this.prefix}:changed`;
  }

  async activeVersion(): Promise<number> {
    const raw = await this.redis.run('admin.policies.active', (c) =>
      c.get(`${this.prefix}:active`),
    );
    return raw === null ? 0 : Number(raw);
  }

  async get(version: number): Promise<PolicyVersion | undefined> {
    const raw = await this.redis.run('admin.policies.get', (c) =>
      c.get(`${this.prefix}:v:${version}`),
    );
    return raw === null ? undefined : (JSON.parse(raw) as PolicyVersion);
  }

  async list(limit: number): Promise<PolicyVersionMeta[]> {
    const all = await this.redis.run('admin.policies.list', (c) =>
      c.hgetall(`${this.prefix}:meta`),
    );
    return Object.values(all)
      .map((raw) => JSON.parse(raw) as PolicyVersionMeta)
      .sort((a, b) => b.version - a.version)
      .slice(0, limit);
  }

  async commit(expected: number, entry: Omit<PolicyVersion, 'version'>): Promise<CommitResult> {
    const version = expected + 1;
    const pruned = Math.max(0, version - this.historyLimit);
    const meta: PolicyVersionMeta = {
      version,
      at: entry.at,
      actor: entry.actor,
      summary: entry.summary,
    };
    const [ok, n] = await this.redis.script<[number, number]>(
      'admin_policy_commit',
      [
        `${this.prefix}:active`,
        `${this.prefix}:meta`,
        `${this.prefix}:v:${version}`,
        `${this.prefix}:v:${pruned}`,
      ],
      [
        expected,
        JSON.stringify({ ...meta, policies: entry.policies }),
        JSON.stringify(meta),
        pruned,
        this.channel,
      ],
    );
    return ok === 1 ? { ok: true, version: n } : { ok: false, active: n };
  }

  watch(listener: (version: number) => void): Promise<() => void> {
    return this.bus.on(this.channel, (message) => listener(Number(message)));
  }
}
