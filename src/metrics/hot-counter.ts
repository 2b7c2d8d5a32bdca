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
  readonly counter: Counter<L>;
  /** Label value → … → cell, one level per label name (no key string built per increment). */
  private readonly root = new Map<unknown, unknown>();
  private readonly cells: Cell<L>[] = [];

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
    this.cell(labels).n += n;
  }

  /**
   * The count of one label set, to keep and add to (`cell.n += 1`): a caller that counts the
   * same labels on every request looks them up once instead of once per increment.
   */
  cell(labels: Record<L, string | number>): { n: number } {
    const { names } = this;
    let level = this.root;
    for (let i = 0; i < names.length - 1; i++) {
      const v = labels[names[i]!];
      let next = level.get(v) as Map<unknown, unknown> | undefined;
      if (next === undefined) level.set(v, (next = new Map()));
      level = next;
    }
    const last = names.length > 0 ? labels[names[names.length - 1]!] : '';
    let cell = level.get(last) as Cell<L> | undefined;
    if (cell === undefined) {
      level.set(last, (cell = { labels: { ...labels }, n: 0 }));
      this.cells.push(cell);
    }
    return cell;
  }

  private flush(): void {
    for (const c of this.cells) {
      if (c.n === 0) continue;
      this.counter.inc(c.labels, c.n);
      c.n = 0;
    }
  }
}

interface Cell<L extends string> {
  labels: Record<L, string | number>;
  n: number;
}
