import type {
  CommitResult,
  PolicyStore,
  PolicyVersion,
  PolicyVersionMeta,
} from './policy-store.js';

/** The policy versions of a single instance (no Redis): same contract as the Redis store. */
export class MemoryPolicyStore implements PolicyStore {
  readonly kind = 'memory';
  private active = 0;
  private readonly versions = new Map<number, PolicyVersion>();
  private readonly listeners = new Set<(version: number) => void>();

  /** @param historyLimit versions kept (older ones are dropped). */
  constructor(private readonly historyLimit: number) {}

  activeVersion(): Promise<number> {
    return Promise.resolve(this.active);
  }

  get(version: number): Promise<PolicyVersion | undefined> {
    const v = this.versions.get(version);
    return Promise.resolve(v ? structuredClone(v) : undefined);
  }

  list(limit: number): Promise<PolicyVersionMeta[]> {
    const metas = [...this.versions.values()]
      .sort((a, b) => b.version - a.version)
      .slice(0, limit)
      .map(({ version, at, actor, summary }) => ({ version, at, actor, summary }));
    return Promise.resolve(metas);
  }

  commit(expected: number, entry: Omit<PolicyVersion, 'version'>): Promise<CommitResult> {
    if (this.active !== expected) return Promise.resolve({ ok: false, active: this.active });
    const version = ++this.active;
    this.versions.set(version, { ...structuredClone(entry), version });
    this.versions.delete(version - this.historyLimit);
    for (const l of this.listeners) l(version);
    return Promise.resolve({ ok: true, version });
  }

  watch(listener: (version: number) => void): Promise<() => void> {
    this.listeners.add(listener);
    return Promise.resolve(() => this.listeners.delete(listener));
  }
}
