import type { AnyReply, AnyRequest } from '../../http/http-context.js';

/**
 * The cache shield's KEY SOURCE extension point: everything the shield must
 * know about one kind of route to shield it. The shield knows no product; a
 * product registers key sources by name (`CacheShieldModule.forFeature`),
 * and the slice option `key` names one. See docs/cache-shield.md.
 */

/** Response header naming why the shield answered: `bloom-absent;v=7`, `null-cache`, `cache-hit`, `cache-hit;stale`, `coalesced`, `too-long`, `no-keys`. */
export const SHIELD_HEADER = 'Rampart-Shield';

/** What the shield looks up for one request. */
export interface ShieldRequest {
  /** Name of the Bloom filter the keys are looked up in (a registered filter source). */
  filter: string;
  /** Bloom keys, exactly as the filter source gives them (e.g. the tokenizer's distinct terms, or an id). */
  keys: string[];
  /** Request key of the caches and single flight: two requests with one key get one answer. */
  cacheKey: string;
  /** Allowlist key: compared with the slice's allowlist entries, normalised by {@link KeySource.allowKey}. */
  allowKey: string;
  /**
   * True when the request can match nothing whatever the data holds (search:
   * a query with no searchable term after the tokenizer). The shield answers
   * {@link KeySource.absent} at once with `Rampart-Shield: no-keys`, without
   * a lookup, whether the filter is on or off.
   */
  nothing?: boolean;
  /** Whatever the key source needs again to check and render an answer (e.g. the raw query parameters). */
  input?: unknown;
}

/** The data generation of a route whose answers do not depend on the filters' data ({@link KeySource.independentOfData}). */
export const NO_GENERATION = '-';

/** What a key source read: a request to shield, a key over the slice's `maxQueryLength`, or none (`skip`: the shield calls on). */
export type KeyRead = { request: ShieldRequest } | { tooLong: number } | { skip: true };

/** The one `skip` outcome (no allocation per request). */
export const SKIP: KeyRead = Object.freeze({ skip: true as const });

/**
 * One kind of shielded route. `V` is the request as the route sees it after
 * its own validation (e.g. the query DTO). Every method runs on the request
 * path: no I/O, no await.
 */
export interface KeySource<V = unknown> {
  /** How a problem names the key, e.g. `q` in "q is longer than 512 characters". Default `key`. */
  readonly label?: string;
  /**
   * The Bloom filters this source's requests are looked up in (the
   * {@link ShieldRequest.filter} values it gives). Readiness waits until
   * each is usable on every policy whose shield enforces with this source.
   * None (or a filter no product registers): nothing to wait for.
   */
  readonly filters?: readonly string[];
  /**
   * True when the route's answers do not depend on the data the shield's filters hold (e.g. inference
   * answers): its entries are not tied to the data generation, so a Bloom build or add anywhere does not
   * make them stale. Default false.
   */
  readonly independentOfData?: boolean;
  /**
   * Reads the key(s) of a request. Runs before the route's validation, so
   * every value is taken defensively: anything unexpected (a repeated or
   * missing parameter, an odd type) is {@link SKIP} and the route's own
   * validation answers. A key longer than `maxLength` code points (the
   * slice's `maxQueryLength`, where it applies) is `{ tooLong: maxLength }`:
   * the shield answers 400 `query_too_long`.
   */
  read(req: AnyRequest, maxLength: number): KeyRead;
  /** An allowlist entry in the form of {@link ShieldRequest.allowKey} (default: as written). */
  allowKey?(key: string): string;
  /**
   * The request as the route will see it, or undefined when the route would
   * refuse it (a 400): the shield then calls on and lets the route answer.
   * The shield never answers a request the route would refuse.
   */
  accept(request: ShieldRequest): V | undefined;
  /**
   * The route's answer when nothing exists for the request (Bloom "absent",
   * null cache): a body, or the route's own ProblemException thrown, marked
   * `.asAnswer()` and carrying `{ [SHIELD_HEADER]: header }` in its headers.
   */
  absent(request: V, header: string): unknown;
  /**
   * A cached body as the route would answer this request (e.g. with this request's own query text).
   * `reply` is the route's reply, for an answer the product writes itself (e.g. server-sent events):
   * it then returns a promise that settles once the answer is written (undefined: nothing more to send).
   */
  found(request: V, body: unknown, reply?: AnyReply): unknown;
  /**
   * What of a backend answer the caches keep and the requests that joined its call get: by default the
   * answer itself; undefined keeps nothing (those requests make their own call). E.g. an answer the
   * product wrote itself as a stream, kept only once it finished normally. No I/O.
   */
  keep?(request: ShieldRequest, body: unknown): unknown;
  /** True for a backend answer without content (kept in the null cache), e.g. a page with no hits. */
  isEmpty(body: unknown): boolean;
  /** True for a backend error that means "nothing there" (kept in the null cache), e.g. the route's 404. */
  isEmptyError(err: unknown): boolean;
}
