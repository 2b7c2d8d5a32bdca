import type { AuditEntry, AuditLog, AuditPage } from './audit-log.js';

/** The audit log of a single instance (no Redis); keeps the newest `maxLen` entries. */
export class MemoryAuditLog implements AuditLog {
  readonly kind = 'memory';
  private readonly entries: AuditEntry[] = [];
  private lastMs = 0;
  private seq = 0;

  constructor(
    private readonly maxLen: number,
    private readonly clock: () => number = Date.now,
  ) {}

  append(entry: Omit<AuditEntry, 'id'>): Promise<string> {
    const ms = Math.max(this.clock(), this.lastMs);
    this.seq = ms === this.lastMs ? this.seq + 1 : 0;
    this.lastMs = ms;
    const id = `${ms}-${this.seq}`;
    this.entries.push({ id, ...structuredClone(entry) });
    if (this.entries.length > this.maxLen)
      this.entries.splice(0, this.entries.length - this.maxLen);
    return Promise.resolve(id);
  }

  page(limit: number, before?: string): Promise<AuditPage> {
    let end = this.entries.length;
    if (before !== undefined) end = this.entries.findIndex((e) => compareIds(e.id, before) >= 0);
    if (end < 0) end = this.entries.length;
    const entries = this.entries.slice(Math.max(0, end - limit), end).reverse();
    const more = end - limit > 0;
    return Promise.resolve(
      more && entries.length > 0 ? { entries, next: entries[entries.length - 1]!.id } : { entries },
    );
  }
}

function compareIds(a: string, b: string): number {
  const [am, as] = a.split('-').map(BigInt) as [bigint, bigint];
  const [bm, bs] = b.split('-').map(BigInt) as [bigint, bigint];
  return am === bm ? Number(as - bs) : am < bm ? -1 : 1;
}
