import { describe, expect, it } from 'vitest';
import { ConfigError } from '../config/config.error.js';
import { loadAppConfig } from '../app.config.js';
import { searchSettings } from './search.settings.js';

const withSection = (search: unknown) => ({ ...loadAppConfig({}), sections: { search } });

describe(searchSettings.name, () => {
  it('should seed the cities corpus by default', () => {
    expect(searchSettings(loadAppConfig({}))).toEqual({ seed: 'cities' });
  });

  it('should accept seed none', () => {
    expect(searchSettings(withSection({ seed: 'none' }))).toEqual({ seed: 'none' });
  });

  it('should list every problem of the section at once', () => {
    let problems: readonly string[] = [];
    try {
      searchSettings(withSection({ seed: 'all', depth: 3 }));
    } catch (e) {
      expect(e).toBeInstanceOf(ConfigError);
      problems = (e as ConfigError).problems;
    }
    expect(problems).toEqual([
      'CONFIG_FILE: search.seed must be one of cities, none',
      'CONFIG_FILE: search.depth is not a known option (seed)',
    ]);
    expect(() => searchSettings(withSection('cities'))).toThrow('search must be an object');
  });
});
