import { describe, expect, it } from 'vitest';
import { validateSettings } from './cache-shield.settings.js';
import { DEFAULT_SETTINGS } from './cache-shield.types.js';

describe(validateSettings.name, () => {
  it('should give the defaults without a section and merge a valid one', () => {
    expect(validateSettings(undefined)).toEqual({ settings: DEFAULT_SETTINGS, problems: [] });
    expect(validateSettings({ targetFpRate: 0.01, revisionPollMs: 0 }).settings).toMatchObject({
      targetFpRate: 0.01,
      revisionPollMs: 0,
      measureSample: 20_000,
    });
  });

  it('should list every problem', () => {
    expect(validateSettings({ targetFpRate: 2, measureSample: 1.5, bogus: 1 }).problems).toEqual([
      'CONFIG_FILE: cacheShield.targetFpRate: must be a number between 1e-9 and 0.5',
      'CONFIG_FILE: cacheShield.measureSample: must be an integer between 0 and 10000000',
      expect.stringMatching(/^CONFIG_FILE: cacheShield\.bogus is not a known option/),
    ]);
    expect(validateSettings([]).problems).toEqual(['CONFIG_FILE: cacheShield must be an object']);
  });
});
