import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../common/clock.js';
import { sweep, sweepStores } from '../../../../test/support/memory-sweep.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const heap = (): number => {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
};

/**
 * Bytes an entry may cost at most, its key included: about 2× what test/bench/memory.bench.mjs
 * measures (a bucket key ~160 B + key ~80 B; a risk record ~205 B + key ~80 B + signal counts
 * ~130 B; a deny entry ~170 B + key).
 */
const ENTRY_BYTES = 400;
const RECORD_BYTES = 600;
const DENY_BYTES = 400;
/** Heap the sweep's own objects (hasher, parameters, a young generation not yet reused) may keep. */
const SLACK = 16 * 1024 * 1024;

describe('memory stores under a sweep of 1,000,000 subjects', () => {
  it('should keep every store under its cap and the heap under what the caps allow', async () => {
    const caps = { entries: 60_000, riskRecords: 30_000, denyCache: 20_000 };
    const s = sweepStores(new ManualClock(), caps);
    const before = heap();
    let peak = { entries: 0, risk: 0, deny: 0 };
    const tally = await sweep(s, 1_000_000, {
      every: 5_000,
      each: () => {
        peak = {
          entries: Math.max(peak.entries, s.store.size),
          risk: Math.max(peak.risk, s.store.risk.size),
          deny: Math.max(peak.deny, s.deny.size),
        };
      },
    });
    const grown = heap() - before;
    expect(peak.entries).toBeLessThanOrEqual(caps.entries);
    expect(peak.risk).toBeLessThanOrEqual(caps.riskRecords);
    expect(peak.deny).toBeLessThanOrEqual(caps.denyCache);
    // The stores did fill (the caps were the bound, not the sweep's size) …
    expect(peak.entries).toBeGreaterThan(caps.entries * 0.9);
    expect(peak.risk).toBe(caps.riskRecords);
    // … and new subjects were refused (503) rather than handed the quota of an evicted bucket.
    expect(tally.full).toBeGreaterThan(0);
    const bound =
      caps.entries * ENTRY_BYTES + caps.riskRecords * RECORD_BYTES + caps.denyCache * DENY_BYTES;
    expect(grown).toBeLessThan(bound + SLACK);
  }, 120_000);
});
