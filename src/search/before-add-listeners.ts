import type { AddBatch, BeforeAddListener } from './search-backend.interface.js';

/**
 * The before-add listeners of a backend. They run one after the other and
 * are awaited before a write starts, so a cache shield can add new terms to
 * its Bloom filter first: the filter never lags behind readable data. The
 * first rejection fails the add.
 */
export class BeforeAddListeners {
  private readonly listeners = new Set<BeforeAddListener>();

  add(listener: BeforeAddListener): () => void {
    // Wrapped so that registering the same function twice gives two independent registrations.
    const entry: BeforeAddListener = (batch) => listener(batch);
    this.listeners.add(entry);
    return () => {
      this.listeners.delete(entry);
    };
  }

  async run(batch: AddBatch): Promise<void> {
    for (const listener of [...this.listeners]) await listener(batch);
  }
}
