/** What the order of attempts reads from an upstream. */
export interface Weighted {
  weight: number;
  priority: number;
}

/**
 * The order in which one call tries a model's upstreams: lowest priority
 * first; within one priority, a weighted draw without replacement (an
 * upstream of weight 3 comes first three times as often as one of weight 1,
 * and the others follow, drawn the same way). `random` is uniform in [0, 1).
 */
export function attemptOrder<T extends Weighted>(
  upstreams: readonly T[],
  random: () => number,
): T[] {
  const priorities = [...new Set(upstreams.map((u) => u.priority))].sort((a, b) => a - b);
  const out: T[] = [];
  for (const priority of priorities) {
    const pool = upstreams.filter((u) => u.priority === priority);
    while (pool.length > 0) {
      let left = random() * pool.reduce((sum, u) => sum + u.weight, 0);
      let i = 0;
      while (i < pool.length - 1 && left >= pool[i]!.weight) left -= pool[i++]!.weight;
      out.push(pool.splice(i, 1)[0]!);
    }
  }
  return out;
}
