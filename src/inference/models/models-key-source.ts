import type { KeyRead, KeySource } from '../../locks/cache-shield/cache-shield.key-source.js';
import type { ModelList } from '../openai.types.js';

/** Name of the key source (the `models` policy's cacheShield `key`). */
export const MODELS_KEY_SOURCE = 'models';

/** The one request of `GET /v1/models`: one cache entry for everybody (the list does not depend on the caller). */
const LIST: KeyRead = Object.freeze({
  request: Object.freeze({
    // No product registers this filter, so a lookup is always "bypassed": the list is cached, never filtered.
    filter: 'inference-models',
    keys: [],
    cacheKey: 'list',
    allowKey: 'list',
  }),
});

const EMPTY: ModelList = { object: 'list', data: [] };

/**
 * The cache shield's key source of `GET /v1/models`: the shield keeps the
 * model list in its result cache (shared through Redis when there is one),
 * so the upstream is asked about once per `resultTtlSeconds`, and serves the
 * last list while the inference breaker is open (`stale: true`). A list is
 * never "empty" (not null-cached); nothing is ever absent.
 */
export const modelsKeySource: KeySource<true> = {
  read: () => LIST,
  accept: () => true,
  absent: () => EMPTY,
  found: (_request, body) => body,
  isEmpty: () => false,
  isEmptyError: () => false,
};
