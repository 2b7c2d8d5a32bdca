/** See RequestState.claimHandoff. */
export interface ClaimHandoff {
  /** The lock that owns the claim (and answers for it). */
  readonly owner: string;
  /** Store key to `SET NX PX`, and its TTL. */
  readonly key: string;
  readonly ttlMs: number;
  /** Set by the guard that made the claim: fresh, taken already (a replay), or unknown (its store call failed). */
  result?: 'fresh' | 'taken' | 'unknown';
  /** The owner's verdict, once the later guards ran: resolves, or throws its rejection. Claims it itself when no guard did. */
  settle(): void | Promise<void>;
}

/** What the locks learn about a request, shared along the chain. */
/** Tokens of one answer: its prompt's and what was generated. */
export interface TokenUse {
  prompt: number;
  completion: number;
}

/**
 * Set by the rate limiter when a request reserved tokens for its policy's tokens rules
 * (docs/rate-limit.md#token-rules). The product calls `hold()` before it calls its backend (from then on it
 * settles), and `settle(used)` once the answer is over, with what the upstream reported; the first settlement
 * counts. A reservation nobody holds (the request was refused later, or failed validation) is given back whole
 * when the response closes.
 */
export interface TokenReservation {
  /** What the request reserved: its prompt's token count (an upper bound) and its most generated tokens. */
  readonly reserved: TokenUse;
  hold(): void;
  /** False when it was settled already (e.g. given back whole: the response closed before the product held it). */
  settle(used: TokenUse): boolean;
}

export interface RequestState {
  /** Request id (from X-Request-Id when well formed, else generated). */
  requestId?: string;
  /** Route template, e.g. `/v1/search/items/:id`. */
  route?: string;
  /** Name of the route policy (`@Protect('<policy>')`). */
  policy?: string;
  /** Verified API client app (lock 1). */
  appId?: string;
  /** Tier of the verified app or user (lock 1), e.g. `free`, `pro`. */
  tier?: string;
  /** Verified end-user identity, when known (lock 1 sets it from a session key). */
  userId?: string;
  /** Id of the session key that signed the request (lock 1), when one did. */
  sessionKey?: string;
  /** Client address resolved once (trusted proxies applied). */
  clientIp?: string;
  /** Request cost in tokens for the rate limiter (≥ 1), when a route computes it. */
  cost?: number;
  /** The request's token reservation (rate limiter, tokens rules), settled by the product. */
  tokens?: TokenReservation;
  /** Aborted when the circuit breaker gives up on the call (timeout). */
  signal?: AbortSignal;
  /** Set by the rate limiter when the global soft threshold is exceeded: serve cached answers, shed expensive work. */
  degraded?: boolean;
  /**
   * Set by the cache shield before it calls on: returns the last cached answer
   * for this request even if expired (undefined when none), so the circuit
   * breaker can serve a stale result while a backend is open — without the
   * locks importing each other.
   */
  staleResult?: () => Promise<unknown>;
  /**
   * Set by a product right before it calls its backend (`markBackendCall`).
   * The circuit breaker counts only failures after it: an error while the
   * request is validated or prepared is never the backend's.
   */
  backendCalled?: boolean;
  /**
   * Set by the circuit breaker around the route (`abortableCall`): the product calls it once its backend has
   * finished its work while the answer still goes to the client (a stream's last upstream chunk received). The
   * backend's slot is freed and the adaptive limit's latency sample taken then, not when a slow reader finishes.
   */
  backendDone?: () => void;
  /**
   * Set by the circuit breaker around the route (`abortableCall`): the product calls it when a stream ended early
   * because its client went away or it was cut at its limits (the backend unfinished): the call is counted as a
   * caller gone (no latency sample, no slow call), not as a success.
   */
  callerGone?: () => void;
  /**
   * Set by the rate limiter when the slice's claim id was already taken (a redelivery): nothing was
   * charged; the product answers and drops the request.
   */
  duplicate?: boolean;
  /**
   * Set by the rate limiter instead of a 429 when the slice says `onLimit: flag`: how long to wait,
   * which rule refused (`<policy>.<rule>`), and whether this is the first refusal of that subject and
   * rule within the window (`notify`: tell the user once).
   */
  limited?: { retryAfterMs: number; rule: string; notify: boolean };
  /** Set by the rate limiter instead of a 403 `banned` when the slice says `onLimit: flag`: the subject is banned. */
  banned?: boolean;
  /**
   * A guard lock whose slice has `onFailure: defer` refused this request; its refusal is
   * raised after the later guards ran (e.g. so the rate limiter can limit refused requests
   * per IP). The lock's name.
   */
  deferredBy?: string;
  /**
   * Set by the rate limiter (`onLimit: stale`) instead of throwing its 429: a later lock may answer the
   * request from a cache; if none does, the chain throws it before the handler runs.
   */
  overQuota?: Error;
  /**
   * A claim a guard lock left for a later guard's own store call, so that both cost one
   * round trip (the signature lock's nonce, made by the rate limiter's script). The chain
   * has its owner finish it (LockChain.runGuards).
   */
  claimHandoff?: ClaimHandoff;
  /** Why the cache shield answered this request itself (`bloom-absent`, `cache-hit`, …), when it did. */
  shieldAnswer?: string;
  /** Set by a lock whose refusal is part of a normal client flow (a session key refreshed in its grace): not a risk signal. */
  benignRefusal?: boolean;
  /** The stable `error` code of the problem+json answer, once one was sent (the problem filters set it). */
  problem?: string;
  /** Start of the request, from performance.now(). */
  startedAt?: number;
}
