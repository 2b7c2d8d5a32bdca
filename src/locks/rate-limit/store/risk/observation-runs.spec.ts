import { describe, expect, it } from 'vitest';
import { observationRuns } from './observation-runs.js';
import type { RiskObservation, RiskSignal } from '../../core/risk.types.js';

const sig = (key: string, signal: RiskSignal = 'bad_signature', points = 5): RiskObservation => ({
  kind: 'signal',
  key,
  signal,
  count: 1,
  points,
});

describe(observationRuns.name, () => {
  it('should fold a signal repeated on one record, across observations of other records', () => {
    const runs = observationRuns([sig('a'), sig('a'), sig('b'), sig('a'), sig('b')]);
    expect(runs.map((r) => [r.o.key, r.times])).toEqual([
      ['a', 3],
      ['b', 2],
    ]);
  });

  it('should start a new run after another observation of the same record', () => {
    const runs = observationRuns([
      sig('a'),
      sig('a', 'bloom_absent', 2),
      sig('a'),
      { kind: 'payload', key: 'a', marker: 'm' },
      sig('a'),
      sig('a', 'bad_signature', 7),
      sig('a'),
    ]);
    expect(runs.map((r) => r.times)).toEqual([1, 1, 1, 1, 1, 1, 1]);
  });

  it('should keep every observation that is not a signal as it is', () => {
    const chat: RiskObservation = { kind: 'chat', key: 'a', set: 's', member: '1' };
    const payload: RiskObservation = { kind: 'payload', key: 'a', marker: 'm' };
    const runs = observationRuns([chat, chat, payload, payload]);
    expect(runs).toEqual([chat, chat, payload, payload].map((o) => ({ o, times: 1 })));
  });
});
