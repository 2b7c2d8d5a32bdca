import { describe, expect, it } from 'vitest';
import { CACHE_SHIELD_DEFAULTS } from './cache-shield.defaults.js';
import type { KeySource } from './cache-shield.key-source.js';
import { compileSlice, validateSlice as validate } from './cache-shield.validate.js';
import { normalizeQuery } from './request/query-normalizer.js';

/** Key sources as a product registers them: only their allowlist normalisation matters here. */
const source = (allowKey?: (k: string) => string) => ({ allowKey }) as unknown as KeySource;
const query = source(normalizeQuery);
const id = source();
const SOURCES = new Map([
  ['query', query],
  ['id', id],
]);
const validateSlice = (slice: Parameters<typeof validate>[0], path: string) =>
  validate(slice, path, [...SOURCES.keys()]);

describe(validate.name, () => {
  it('should accept every shipped slice', () => {
    // The shipped products' key sources: search's `query` and `id`, inference's `models` and `completion`.
    const shipped = [...SOURCES.keys(), 'models', 'completion'];
    for (const [name, slice] of Object.entries(CACHE_SHIELD_DEFAULTS))
      expect(validate(slice, name, shipped)).toEqual([]);
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
        serveWhileBuilding: 'yes',
        cacheScope: 'user',
        colour: 'red',
        allowlist: [{ key: '' }, { key: 'a', until: 'soon', extra: 1 }, 5],
      },
      'p',
    );
    expect(problems).toEqual([
      'p.colour: unknown option (known: mode, override, key, filter, filterOffUntil, allowlist, resultTtlSeconds, nullTtlSeconds, staleTtlSeconds, jitter, maxQueryLength, serveWhileBuilding, cacheScope)',
      'p.key: must be "query" or "id"',
      'p.filter: must be "on" or "off"',
      'p.serveWhileBuilding: must be true or false',
      'p.cacheScope: must be "app" or "shared"',
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

  it('should accept exactly the registered key sources', () => {
    expect(validate({ mode: 'enforce', key: 'color' }, 'p', ['query', 'id', 'color'])).toEqual([]);
    expect(validate({ mode: 'enforce', key: 'colour' }, 'p', ['query', 'id', 'color'])).toEqual([
      'p.key: must be "query", "id" or "color"',
    ]);
    expect(validate({ mode: 'enforce', key: 'query' }, 'p', [])).toEqual([
      'p.key: must name a registered key source (none is registered)',
    ]);
    expect(validate({ mode: 'off', key: 'id' }, 'p', ['query'])).toEqual([
      'p.key: must be "query"',
    ]);
  });
});

describe(compileSlice.name, () => {
  it('should apply the documented defaults', () => {
    expect(compileSlice({ mode: 'enforce', key: 'query' }, SOURCES)).toEqual({
      key: 'query',
      source: query,
      filterOn: true,
      filterOffUntil: Infinity,
      allowlist: new Map(),
      resultTtlMs: 60_000,
      nullTtlMs: 10_000,
      staleTtlMs: 600_000,
      jitter: 0.1,
      maxQueryLength: 512,
      scope: 'app',
    });
    expect(compileSlice({ mode: 'enforce', key: 'id', cacheScope: 'shared' }, SOURCES).scope).toBe(
      'shared',
    );
  });

  it('should normalise query allowlist keys and keep ids as they are', () => {
    expect([
      ...compileSlice(
        {
          mode: 'enforce',
          key: 'query',
          filter: 'off',
          allowlist: [{ key: '  New   YORK ', until: 5 }, { key: 'x' }],
        },
        SOURCES,
      ).allowlist,
    ]).toEqual([
      ['new york', 5],
      ['x', Infinity],
    ]);
    expect([
      ...compileSlice(
        { mode: 'enforce', key: 'id', allowlist: [{ key: 'AbC' }] },
        SOURCES,
      ).allowlist.keys(),
    ]).toEqual(['AbC']);
    expect(compileSlice({ mode: 'enforce', key: 'id', filter: 'off' }, SOURCES).filterOn).toBe(
      false,
    );
    expect(
      compileSlice({ mode: 'enforce', key: 'id', filter: 'off', filterOffUntil: 5 }, SOURCES)
        .filterOffUntil,
    ).toBe(5);
    expect(validateSlice({ mode: 'enforce', key: 'id', filterOffUntil: 'later' }, 'p')).toEqual([
      'p.filterOffUntil: must be epoch milliseconds',
    ]);
  });

  it('should resolve the key source once, and refuse a name no product registered', () => {
    expect(compileSlice({ mode: 'enforce', key: 'id' }, SOURCES).source).toBe(id);
    expect(() => compileSlice({ mode: 'enforce', key: 'color' }, SOURCES)).toThrow(
      /no key source "color"/,
    );
  });
});
