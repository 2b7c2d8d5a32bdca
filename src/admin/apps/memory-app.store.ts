import type { AppDefinition, AppPutResult, AppStore, StoredApp } from './app-store.js';

/** Apps changed through the admin API on a single instance (no Redis). */
export class MemoryAppStore implements AppStore {
  readonly kind = 'memory';
  private readonly apps = new Map<string, StoredApp>();
  private counter = 0;
  private readonly listeners = new Set<(version: number) => void>();

  version(): Promise<number> {
    return Promise.resolve(this.counter);
  }

  all(): Promise<Map<string, StoredApp>> {
    return Promise.resolve(new Map([...this.apps].map(([id, a]) => [id, structuredClone(a)])));
  }

  get(id: string): Promise<StoredApp | undefined> {
    const a = this.apps.get(id);
    return Promise.resolve(a ? structuredClone(a) : undefined);
  }

  put(expectedRev: number, definition: AppDefinition): Promise<AppPutResult> {
    const rev = this.apps.get(definition.id)?.rev ?? 0;
    if (rev !== expectedRev) return Promise.resolve({ ok: false, rev });
    this.apps.set(definition.id, { rev: rev + 1, definition: structuredClone(definition) });
    const version = ++this.counter;
    for (const l of this.listeners) l(version);
    return Promise.resolve({ ok: true, rev: rev + 1, version });
  }

  watch(listener: (version: number) => void): Promise<() => void> {
    this.listeners.add(listener);
    return Promise.resolve(() => this.listeners.delete(listener));
  }
}
