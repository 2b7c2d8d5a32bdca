import type { RiskObservation } from '../../core/risk.types.js';

/** One entry of the observe script: an observation, repeated `times` times in a row on its record. */
export interface ObservationRun {
  o: RiskObservation;
  times: number;
}

/**
 * Folds a batch's repeats (a flood of forged requests from one address queues the same
 * signal hundreds of times): a signal observation joins the previous observation of the same
 * record when that one is the same signal with the same count and points. Each record's
 * operations keep their order (observations of other records may sit between them; they
 * touch other keys), and the script applies a run's points one after the other, so the
 * records are exactly what the separate observations give, in one entry instead of `times`.
 */
export function observationRuns(batch: readonly RiskObservation[]): ObservationRun[] {
  const runs: ObservationRun[] = [];
  const last = new Map<string, ObservationRun>();
  for (const o of batch) {
    const prev = last.get(o.key);
    if (prev !== undefined && foldsInto(prev.o, o)) {
      prev.times += 1;
      continue;
    }
    const run = { o, times: 1 };
    runs.push(run);
    last.set(o.key, run);
  }
  return runs;
}

/** Whether `o` joins the run of `prev`, the previous observation of its record: the same signal, count and points. */
export function foldsInto(prev: RiskObservation, o: RiskObservation): boolean {
  return (
    o.kind === 'signal' &&
    prev.kind === 'signal' &&
    prev.signal === o.signal &&
    prev.count === o.count &&
    prev.points === o.points
  );
}
