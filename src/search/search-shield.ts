import type { CacheShieldFeature } from '../locks/cache-shield/cache-shield.registry.js';
import type { SearchBackend } from './search-backend.interface.js';
import { IDS_FILTER, TERMS_FILTER, searchItemKeys, searchQueryKeys } from './search-key-sources.js';

/**
 * What search plugs into the cache shield: the key sources `query` and `id`
 * (named by the `search` and `search-item` policies' `key` option) and two
 * filters over the backend, indexed terms and item ids. The backend's
 * revision reveals writes made outside the app (`npm run index`); its
 * before-add listener hands every batch's terms and ids to the shield first.
 */
export function searchShieldFeature(backend: SearchBackend): CacheShieldFeature {
  return {
    keySources: { query: searchQueryKeys, id: searchItemKeys },
    filters: [
      {
        name: TERMS_FILTER,
        source: `${backend.name}:vocabulary`,
        keys: () => backend.vocabulary(),
      },
      { name: IDS_FILTER, source: `${backend.name}:ids`, keys: () => backend.ids() },
    ],
    revision: () => backend.count().then((c) => c.revision),
    onBeforeAdd: (hook) =>
      backend.onBeforeAdd((batch) =>
        hook({ [TERMS_FILTER]: batch.terms, [IDS_FILTER]: batch.ids }),
      ),
  };
}
