import { afterEach, describe, expect, it } from 'vitest';
import { MetricsService } from '../../../metrics/metrics.service.js';
import { HeartbeatRiders } from '../../../redis/heartbeat-riders.js';
import { observeParams } from '../core/risk-params.js';
import type { RiskObservation } from '../core/risk.types.js';
import { QuotaMetrics } from '../quota.metrics.js';
import { defaultRiskSettings } from '../settings/risk.settings.js';
import type { RiskStore } from '../store/risk/risk-store.js';
import { MAX_BATCH, RiskBatches } from './risk-batches.js';

/** A store that records each write (one entry per script call) and raises nothing. */
function recordingStore(): RiskStore & { writes: RiskObservation[][] } {
  const writes: RiskObservation[][] = [];
  return {
    writes,
    observe: (batch) => (writes.push([...batch]), Promise.resolve(0)),
    read: () => Promise.resolve(undefined),
    reset: () => Promise.resolve(false),
  };
}

const signal = (key: string, points = 5): RiskObservation => ({
  kind: 'signal',
  key,
  signal: 'bad_signature',
  count: 1,
  points,
});
/** A signal's delay: long enough that no timer fires while a test pushes. */
const WITHIN_MS = 60_000;

describe(RiskBatches.name, () => {
  let batches: RiskBatches | undefined;
  afterEach(() => batches?.unride());

  function make(store: RiskStore): RiskBatches {
    const m = new QuotaMetrics(new MetricsService());
    batches = new RiskBatches(
      store,
      observeParams(defaultRiskSettings()),
      new HeartbeatRiders(),
      m,
    );
    return batches;
  }

  it('should queue a flood of one signal on one record as one entry: no call before its delay, however many', async () => {
    const store = recordingStore();
    const b = make(store);
    for (let i = 0; i < MAX_BATCH * 10; i++) b.push(store, signal('rl:{t}:risk:ip:a'), WITHIN_MS);
    await Promise.resolve();
    expect(store.writes).toHaveLength(0);
    await b.flush();
    // Every observation is written (the record gets all of them), in one call.
    expect(store.writes).toHaveLength(1);
    expect(store.writes[0]).toHaveLength(MAX_BATCH * 10);
  });

  it('should still write at once when MAX_BATCH distinct entries are queued', async () => {
    const store = recordingStore();
    const b = make(store);
    for (let i = 0; i < MAX_BATCH - 1; i++) b.push(store, signal(`rl:{t}:risk:ip:${i}`), WITHIN_MS);
    expect(store.writes).toHaveLength(0);
    b.push(store, signal(`rl:{t}:risk:ip:last`), WITHIN_MS);
    await Promise.resolve();
    expect(store.writes).toHaveLength(1);
    expect(store.writes[0]).toHaveLength(MAX_BATCH);
  });

  it('should count a record whose signal changes as a new entry (it does not fold)', async () => {
    const store = recordingStore();
    const b = make(store);
    // One record alternating two signals: every observation starts a new run.
    for (let i = 0; i < MAX_BATCH; i++)
      b.push(store, signal('rl:{t}:risk:ip:a', i % 2 === 0 ? 5 : 1), WITHIN_MS);
    await Promise.resolve();
    expect(store.writes).toHaveLength(1);
  });
});
