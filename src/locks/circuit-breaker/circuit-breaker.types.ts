// Options, admin controls and the route slice: breaker-options.types.ts (re-exported here).
export {
  BREAKER_OPTION_KEYS,
  type BreakerControls,
  type BreakerOptions,
  type CircuitBreakerSlice,
} from './breaker-options.types.js';

/**
 * Where a breaker stands. opossum decides `closed → open` (error rate over
 * its rolling window); everything after that is ours, because opossum admits
 * exactly one probe, closes on one success and has no jitter (#613 wontfix):
 *
 *   open ──(jittered reset timeout)──► half_open ──(N probes succeed, one at a time)──► recovering ──(ramp ends)──► closed
 *     ▲                                    │ a probe fails                                  │ opossum trips again
 *     └────────────────────────────────────┴────────────────────────────────────────────────┘
 *
 * `forced_open` / `forced_closed` are admin forces; lifting `forced_open`
 * goes to half_open (probes decide), lifting `forced_closed` to closed.
 */
export type BreakerPhase =
  'closed' | 'open' | 'half_open' | 'recovering' | 'forced_open' | 'forced_closed';

export const BREAKER_PHASES: readonly BreakerPhase[] = [
  'closed',
  'open',
  'half_open',
  'recovering',
  'forced_open',
  'forced_closed',
];

/**
 * Why a circuit opened: the error rate or timeouts (opossum's window), the slow-call share (or a slow probe),
 * a probe that failed.
 */
export type TripReason = 'errors' | 'slow_calls' | 'probe_failed';

/** Why the recovery gate refuses a call. */
export type Refusal = 'open' | 'half_open' | 'recovering' | 'forced_open';

/** Why the breaker itself answered: a refusal of the recovery gate, or a full bulkhead. */
export type BreakerRefusal = Refusal | 'busy';

/** The answer to "may this call go on?": yes (maybe as a probe of a half-open circuit), or why not and for how long. */
export type Admission<R extends BreakerRefusal = BreakerRefusal> =
  | {
      admit: true;
      probe?: { epoch: number };
      /** It waited and was handed a freed slot. */ waited?: true;
    }
  | { admit: false; reason: R; retryAfterMs: number; queue?: QueueRefusal };

/**
 * Why a call that could have waited for a slot got none: the queue or its app's lane was full (`position`: where
 * it would have stood), or `maxWaitMs` ran out; `length`: calls waiting then.
 */
export interface QueueRefusal {
  why: 'full' | 'app_full' | 'timeout';
  length: number;
  position?: number;
}

/** What a probe proved about the backend: it answered, it failed, or nothing (the caller went away). */
export type ProbeOutcome = 'success' | 'failure' | 'neutral';

/** How one call through a breaker ended, as the breaker counts it. */
export type CallOutcome = 'success' | 'failure' | 'timeout' | 'client_error' | 'client_gone';
