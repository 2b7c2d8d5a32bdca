import { ConfigError } from '../config/config.error.js';
import type { RampartConfig } from '../config/config.types.js';
import { CITIES_CORPUS, loadCities } from './cities-corpus.js';
import { PostgresSearchBackend } from './postgres-search.backend.js';
import type { SearchBackend } from './search-backend.interface.js';
import type { SearchOpenOptions } from './search-open-options.js';
import { SqliteSearchBackend } from './sqlite-search.backend.js';
import { searchSettings } from './search.settings.js';

/**
 * Opens the configured backend: PostgreSQL when SEARCH_BACKEND=postgres,
 * else the SQLite file. A never-initialised store is seeded per the
 * `search.seed` setting, unless `seed` says otherwise (the index CLI starts empty).
 */
export function openSearchBackend(
  config: RampartConfig,
  opts: { log?: (message: string) => void; seed?: 'cities' | 'none' } = {},
): Promise<SearchBackend> {
  const seed = opts.seed ?? searchSettings(config).seed;
  const open: SearchOpenOptions = {
    log: opts.log,
    seed: seed === 'cities' ? { name: CITIES_CORPUS, load: loadCities } : undefined,
  };
  if (config.search.backend === 'postgres') {
    const url = config.search.databaseUrl;
    if (!url)
      return Promise.reject(new ConfigError(['SEARCH_BACKEND=postgres needs DATABASE_URL']));
    return PostgresSearchBackend.open(url, open);
  }
  return SqliteSearchBackend.open(config.search.sqlitePath, open);
}
