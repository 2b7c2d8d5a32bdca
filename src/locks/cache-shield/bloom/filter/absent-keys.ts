/**
 * Keys that are certainly not in a set, shaped like its members (a member
 * with one code unit changed, added or dropped), to measure a filter's
 * false-positive rate on realistic near misses rather than on random noise.
 * Distinct, in batches of at most `batch` keys (callers yield between them).
 */
export function* absentKeys(
  present: ReadonlySet<string>,
  count: number,
  random: () => number = Math.random,
  batch = 5_000,
): Generator<string[]> {
  const members = [...sample(present, Math.min(present.size, 4_096), random)];
  const seen = new Set<string>();
  let attempts = 0;
  let out: string[] = [];
  while (seen.size < count && attempts < count * 20) {
    attempts++;
    const base = members.length > 0 ? members[Math.floor(random() * members.length)]! : '';
    const key = mutate(base, attempts, random);
    if (present.has(key) || seen.has(key)) continue;
    seen.add(key);
    out.push(key);
    if (out.length === batch) {
      yield out;
      out = [];
    }
  }
  if (out.length > 0) yield out;
}

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

function mutate(base: string, n: number, random: () => number): string {
  const pos = Math.floor(random() * (base.length + 1));
  const ch = ALPHABET[Math.floor(random() * ALPHABET.length)]!;
  // Every third key gets a counter so the generator never runs dry on a tiny set.
  const tail = n % 3 === 0 ? n.toString(36) : '';
  switch (Math.floor(random() * 3)) {
    case 0:
      return base.slice(0, pos) + ch + base.slice(pos) + tail;
    case 1:
      return base.slice(0, pos) + ch + base.slice(pos + 1) + tail;
    default:
      return (base.slice(0, pos) + base.slice(pos + 1) || ch) + tail;
  }
}

function* sample(set: ReadonlySet<string>, n: number, random: () => number): Iterable<string> {
  if (n >= set.size) {
    yield* set;
    return;
  }
  const keep = n / set.size;
  let taken = 0;
  for (const v of set) {
    if (taken >= n) return;
    if (random() < keep) {
      taken++;
      yield v;
    }
  }
}
