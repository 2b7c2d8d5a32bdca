import { HttpException } from '@nestjs/common';
import { limitSignal } from '../adaptive/concurrency-limit.js';
import type { Admission, BreakerOptions, CallOutcome } from '../circuit-breaker.types.js';
import type { BreakerParts } from './breaker-parts.js';
import { BeforeBackendError, classifyError, SlotReclaimedError } from './call-outcome.js';
import { GuardOptions, Guarded, withTimeout } from './guarded-call.js';
import type { Holder } from './slot-desk.js';
import { SlowCallWindow } from './slow-call-window.js';

/** An admitted call (maybe a probe). */
export type Ticket = Extract<Admission, { admit: true }>;

/**
 * Runs an admitted call: through opossum (counted) or as a probe (judged by the gate). Its slot is held until
 * `start`'s promise has settled, or until the product says the backend is done (`opts.onBackendDone`: a stream
 * whose upstream sent its last chunk while a slow client still reads): the slot, the adaptive limit's latency
 * sample and the slow-call time measure the backend's own work. A call the product says ended early because its
 * caller went away (`opts.onCallerGone`: a stream whose client left or that was cut, its backend unfinished) settles
 * as `client_gone`, as a non-streamed call aborted by its client does: no sample, no slow call, no failure.
 * `limitMoved` is told when the limit changed.
 */
export function guardCall<T>(
  p: BreakerParts,
  options: () => BreakerOptions,
  limitMoved: () => void,
  call: { ticket: Ticket; start: () => Promise<T>; opts: GuardOptions; holder: Holder },
): Guarded<T> {
  const { ticket, start, opts, holder } = call;
  const t0 = performance.now();
  let work: Promise<T> | undefined;
  let inFlight = 0;
  let doneAt: number | undefined;
  let reclaimed = false;
  // A stream ended early by its caller (gone, or cut by the product) before the backend was done: it proves nothing.
  let gone = false;
  let free = (): void => undefined;
  const freed = new Promise<void>((resolve) => (free = resolve));
  opts.onBackendDone?.(() => {
    if (doneAt !== undefined || work === undefined) return;
    doneAt = performance.now();
    free();
    if (p.slots.record('sample', doneAt - t0, inFlight)) limitMoved();
  });
  opts.onCallerGone?.(() => void (gone ||= doneAt === undefined && work !== undefined));
  const run = (): Promise<T> => {
    // A call stopped to give its slot back (reclaimAfterMs) says nothing about the backend (SlotReclaimedError).
    const reclaim = (r: unknown): void => {
      reclaimed = true;
      opts.abort(r);
    };
    work = p.slots.hold(start, holder, ticket.waited === true, freed, reclaim);
    inFlight = p.slots.inFlight;
    return withTimeout(work, options().timeoutMs, opts).catch((err: unknown) => {
      throw reclaimed && !(err instanceof BeforeBackendError) ? new SlotReclaimedError(err) : err;
    });
  };
  const verdict = ticket.probe ? run() : p.window.fire(run);
  const probe = ticket.probe;
  p.ledger.started(probe !== undefined);
  const settled = (outcome: CallOutcome, err?: unknown): void => {
    const ms = (doneAt ?? performance.now()) - t0;
    const proof = p.ledger.settled(outcome, probe !== undefined, t0);
    const status = err instanceof HttpException ? err.getStatus() : undefined;
    // A backend done early gave its sample then (the client's reading is not the backend's latency).
    if (doneAt === undefined && p.slots.record(limitSignal(outcome, status), ms, inFlight))
      limitMoved();
    const o = options();
    if (!probe) return p.slow.record(o, outcome, ms);
    if (proof === 'success' && SlowCallWindow.slow(o, outcome, ms))
      return p.gate.probeDone(probe.epoch, 'failure', 'slow_calls');
    p.gate.probeDone(probe.epoch, proof);
  };
  verdict.then(
    () => settled(gone ? 'client_gone' : 'success'),
    // opossum's own refusals (open, shut down) never reached the backend: nothing to count.
    (err: unknown) => (work === undefined ? undefined : settled(classifyError(err), err)),
  );
  return { work, verdict };
}
