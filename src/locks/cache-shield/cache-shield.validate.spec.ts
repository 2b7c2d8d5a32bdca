import { describe, expect, it } from 'vitest';
import { CACHE_SHIELD_DEFAULTS } from './cache-shield.defaults.js';
import { DEFAULT_SETTINGS } from './cache-shield.types.js';
import { compileSlice, validateSettings, validateSlice } from './cache-shield.validate.js';

describe(validateSlice.name, () => {
  it('should accept every shipped slice', () => {
    for (const [name, slice] of Object.entries(CACHE_SHIELD_DEFAULTS))
      expect(validateSlice(slice, name)).toEqual([]);
  });

  it('should require a key unless the lock is off, also for an override', () => {
    expect(validateSlice({ mode: 'enforce' }, 'p')).toEqual(['p.key: must be "query" or "id"']);
    expect(validateSlice({ mode: 'off', override: { mode: 'shadow', until: 1 } }, 'p')).toEqual([
      'p.key: must be "query" or "id"',
    ]);
    expect(validateSlice({ mode: 'off' }, 'p')).toEqual([]);
  });

  it('should list every bad option', () => {
    const problems = validateSlice(
      {
        mode: 'enforce',
        key: 'name',
        filter: 'maybe',
        resultTtlSeconds: -1,
        nullTtlSeconds: 'x',
        staleTtlSeconds: 1e9,
        jitter: 0.9,
        maxQueryLength: 2.5,
        colour: 'red',
        allowlist: [{ key: '' }, { key: 'a', until: 'soon', extra: 1 }, 5],
      },
      'p',
    );
    expect(problems).toEqual([
      'p.colour: unknown option (known: mode, override, key, filter, filterOffUntil, allowlist, resultTtlSeconds, nullTtlSeconds, staleTtlSeconds, jitter, maxQueryLength)',
      'p.key: must be "query" or "id"',
      'p.filter: must be "on" or "off"',
      'p.resultTtlSeconds: must be a number between 0 and 86400',
      'p.nullTtlSeconds: must be a number between 0 and 86400',
      'p.staleTtlSeconds: must be a number between 0 and 604800',
      'p.jitter: must be a number between 0 and 0.5',
      'p.maxQueryLength: must be an integer between 1 and 8192',
      'p.allowlist[0].key: must be a non-empty string of at most 1024 characters',
      'p.allowlist[1].extra: unknown option (key, until)',
      'p.allowlist[1].until: must be epoch milliseconds',
      'p.allowlist[2]: must be {key, until?}',
    ]);
    expect(validateSlice({ mode: 'enforce', key: 'id', allowlist: 'x' }, 'p')).toEqual([
      'p.allowlist: must be a list of {key, until?}',
    ]);
  });
});

describe(compileSlice.name, () => {
  it('should apply the documented defaults', () => {
    expect(compileSlice({ mode: 'enforce', key: 'query' })).toEqual({
      key: 'query',
      filterOn: true,
      filterOffUntil: Infinity,
      allowlist: new Map(),
      resultTtlMs: 60_000,
      nullTtlMs: 10_000,
      staleTtlMs: 600_000,
      jitter: 0.1,
      maxQueryLength: 512,
    });
  });

  it('should normalise query allowlist keys and keep ids as they are', () => {
    expect([
      ...compileSlice({
        mode: 'enforce',
        key: 'query',
        filter: 'off',
        allowlist: [{ key: '  New   YORK ', until: 5 }, { key: 'x' }],
      }).allowlist,
    ]).toEqual([
      ['new york', 5],
      ['x', Infinity],
    ]);
    expect([
      ...compileSlice({ mode: 'enforce', key: 'id', allowlist: [{ key: 'AbC' }] }).allowlist.keys(),
    ]).toEqual(['AbC']);
    expect(compileSlice({ mode: 'enforce', key: 'id', filter: 'off' }).filterOn).toBe(false);
    expect(
      compileSlice({ mode: 'enforce', key: 'id', filter: 'off', filterOffUntil: 5 }).filterOffUntil,
    ).toBe(5);
    expect(validateSlice({ mode: 'enforce', key: 'id', filterOffUntil: 'later' }, 'p')).toEqual([
      'p.filterOffUntil: must be epoch milliseconds',
    ]);
  });
});

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
