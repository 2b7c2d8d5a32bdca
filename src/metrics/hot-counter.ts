import { Counter, type Registry } from 'prom-client';

/**
 * A Prometheus counter for per-request paths. prom-client hashes and checks
 * the labels on every `inc`; here an increment adds to a local count keyed by
 * the label values, and the counts go to prom-client when the metrics are
 * read (the counter's `collect`, run by every scrape and every `get()`), so
 * what a reader sees is exact. Labels must be a bounded set (as for any
 * Prometheus label).
 */
export class HotCounter<L extends string> {
  private readonly pending = new Map<string, { labels: Record<L, string | number>; n: number }>();

  readonly counter: Counter<L>;

  constructor(
    registry: Registry,
    name: string,
    help: string,
    private readonly names: readonly L[],
  ) {
    const flush = (): void => this.flush();
    this.counter = new Counter({
      name,
      help,
      labelNames: names,
      registers: [registry],
      collect: flush,
    });
  }

  inc(labels: Record<L, string | number>, n = 1): void {
    let key = '';
    for (const name of this.names) key += `${labels[name]}\u0000`;
    const e = this.pending.get(key);
    if (e) e.n += n;
    else this.pending.set(key, { labels: { ...labels }, n });
  }

  private flush(): void {
    for (const e of this.pending.values()) {
      if (e.n === 0) continue;
      this.counter.inc(e.labels, e.n);
      e.n = 0;
    }
  }
}
