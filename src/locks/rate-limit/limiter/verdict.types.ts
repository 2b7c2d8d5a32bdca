import type { QuotaState } from '../core/rate-limit-headers.js';

/** What the lock answers: headers of the tightest rule, a 429 with the blocking rule's quota, or a 503. */
export type Verdict =
  | {
      kind: 'allowed';
      quota?: QuotaState;
      degraded: boolean;
      /** The tightest token budget after this request's reservation (token headers). */
      tokens?: QuotaState;
      /** Paced: milliseconds to hold the request for its reserved slot (the longest wait of its enforced rules). */
      waitMs?: number;
    }
  | { kind: 'duplicate' }
  | {
      kind: 'limited';
      quota: QuotaState;
      retryAfterMs: number;
      /** The blocking rule is a concurrency rule (429 `concurrency_limit`). */
      concurrency?: boolean;
      /** The blocking rule is a token budget (429 `token_budget`). */
      tokens?: boolean;
      /** First refusal of this subject and rule in its window (only decided for `onLimit: flag`). */
      notify: boolean;
    }
  | { kind: 'unavailable'; retryAfterS: number }
  /** Load level hard: a non-critical request is refused 503 `load_shed`. */
  | { kind: 'shed'; retryAfterS: number }
  /** A paced rule would hold it, but `rateLimit.maxPaced` requests wait already: 503 `pacing_full`. */
  | { kind: 'pacingFull'; retryAfterS: number };

export const ALLOWED: Verdict = { kind: 'allowed', degraded: false };
