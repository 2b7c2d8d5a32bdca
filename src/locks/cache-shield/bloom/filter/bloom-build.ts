import { absentKeys } from './absent-keys.js';
import { BloomFilter } from './bloom-filter.js';

/** One build of one filter, as stored with it and shown to operators. */
export interface BloomBuildInfo {
  /** Filter name, e.g. `search-terms`. */
  filter: string;
  /** Monotonic build number of this filter. */
  version: number;
  /** Distinct keys the build was made from. */
  items: number;
  /** False-positive rate the filter was sized for (0–1). */
  targetP: number;
  /** False-positive rate measured on held-out absent keys before activation (0–1). */
  measuredP: number;
  /** Absent keys the measurement used. */
  measuredOn: number;
  /** Where the keys came from, e.g. `sqlite:vocabulary`. Never user input. */
  source: string;
  /** ISO time the build finished. */
  builtAt: string;
  /** Milliseconds from the first key read to a validated filter. */
  buildMs: number;
  m: number;
  k: number;
  /** Hash function id. */
  hash: string;
  /** Bytes of the bit array (m/8 rounded up). */
  bytes: number;
  /** Backend revision read before the keys were (the build covers every write up to it). */
  revision: number;
  /** Add sequence of the filter the build includes (adds replayed during the build included). */
  seq: number;
}

/** The outcome of building a filter from its keys, before it is activated. */
export interface BuiltFilter {
  filter: BloomFilter;
  items: number;
  measuredP: number;
  measuredOn: number;
  /** Keys reported absent by the new filter: must be 0, else the build is refused. */
  falseNegatives: number;
}

/** Thrown when a new build fails its validation: it is never activated. */
export class BloomValidationError extends Error {
  override readonly name = 'BloomValidationError';
}

/**
 * Sizes a filter for the distinct `keys` at `targetP`, adds them, checks
 * every key is reported present (zero false negatives) and measures the
 * false-positive rate on `measureSample` held-out absent keys.
 */
export function buildFilter(
  keys: ReadonlySet<string>,
  targetP: number,
  measureSample: number,
  random: () => number = Math.random,
): BuiltFilter {
  const run = buildSteps(keys, targetP, measureSample, random);
  for (;;) {
    const step = run.next();
    if (step.done) return step.value;
  }
}

/**
 * The same build in steps of at most {@link STEP} keys, so a caller can let
 * the event loop run between them (a boot build must not stall requests).
 */
export function* buildSteps(
  keys: ReadonlySet<string>,
  targetP: number,
  measureSample: number,
  random: () => number = Math.random,
): Generator<void, BuiltFilter> {
  const filter = BloomFilter.sized(keys.size, targetP);
  let n = 0;
  for (const key of keys) {
    filter.add(key);
    if (++n % STEP === 0) yield;
  }
  let falseNegatives = 0;
  for (const key of keys) {
    if (!filter.has(key)) falseNegatives++;
    if (++n % STEP === 0) yield;
  }
  let fp = 0;
  let probes = 0;
  const sampler = absentKeys(keys, measureSample, random);
  for (;;) {
    const batch = sampler.next();
    if (batch.done) break;
    for (const key of batch.value) if (filter.has(key)) fp++;
    probes += batch.value.length;
    yield;
  }
  return {
    filter,
    items: keys.size,
    measuredP: probes > 0 ? fp / probes : 0,
    measuredOn: probes,
    falseNegatives,
  };
}

/** Keys per step of {@link buildSteps}. */
const STEP = 5_000;
