import type { AdminRedisCommands } from '../admin-redis.js';
import type { AuditEntry, AuditLog, AuditPage } from './audit-log.js';

/** The audit log as a Redis stream `cfg:{<env>:<service>}:audit` (XADD … MAXLEN ~ maxLen), one JSON field per entry. */
export class RedisAuditLog implements AuditLog {
  readonly kind = 'redis';
  private readonly key: string;

  constructor(
    private readonly redis: AdminRedisCommands,
    private readonly maxLen: number,
  ) {
    this.key = `cfg:${redis.tag}:audit`;
  }

  async append(entry: Omit<AuditEntry, 'id'>): Promise<string> {
    const id = await this.redis.run('admin.audit.append', (c) =>
      c.xadd(this.key, 'MAXLEN', '~', this.maxLen, '*', 'e', JSON.stringify(entry)),
    );
    return String(id);
  }

  async page(limit: number, before?: string): Promise<AuditPage> {
    // Nothing is older than the first possible id (and Redis refuses an exclusive 0-0).
    if (before !== undefined && /^0+-0+$/.test(before)) return { entries: [] };
    // Fetch one more than asked to know whether an older page exists.
    const rows = await this.redis.run('admin.audit.page', (c) =>
      c.xrevrange(this.key, before ? `(${before}` : '+', '-', 'COUNT', limit + 1),
    );
    const entries = rows.slice(0, limit).map(([id, fields]) => ({
      id,
      ...(JSON.parse(fields[1] ?? '{}') as Omit<AuditEntry, 'id'>),
    }));
    return rows.length > limit ? { entries, next: entries[entries.length - 1]!.id } : { entries };
  }
}
