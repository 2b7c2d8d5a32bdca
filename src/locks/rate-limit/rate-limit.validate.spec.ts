import { describe, expect, it } from 'vitest';
import { RATE_LIMIT_DEFAULTS } from './rate-limit.defaults.js';
import { parseDuration, parseRate } from './core/rate-parse.js';
import { validateSlice } from './rate-limit.validate.js';
import { validateRule } from './rate-limit.validate-rule.js';

const COSTS = ['inference'];
/** What the products register for the shipped slices (inference's cost; Telegram's cost, attributes and claim). */
const SHIPPED_COSTS = ['inference', 'telegram', 'notifications'];
const SHIPPED_NAMES = {
  attributes: ['verified', 'chatType', 'command', 'kind', 'role'],
  claims: ['update'],
  tokens: ['inference'],
};

describe(parseRate.name, () => {
  it.each([
    ['6/min', 0.1],
    ['10/s', 10],
    ['1000/h', 1000 / 3600],
    ['100/d', 100 / 86400],
    ['5/10s', 0.5],
    [2.5, 2.5],
  ])('should read %s as %d tokens per second', (raw, perSec) => {
    expect(parseRate(raw)).toBeCloseTo(perSec, 12);
  });

  it.each([['0/s'], ['ten/s'], ['5/fortnight'], [-1], [0], [''], [null]])(
    'should refuse %j',
    (raw) => {
      expect(parseRate(raw)).toBeUndefined();
    },
  );

  it('should read durations', () => {
    expect(parseDuration('1m')).toBe(60_000);
    expect(parseDuration('250ms')).toBe(250);
    expect(parseDuration('soon')).toBeUndefined();
  });
});

describe(validateSlice.name, () => {
  it('should accept every shipped slice', () => {
    for (const [name, slice] of Object.entries(RATE_LIMIT_DEFAULTS))
      expect(validateSlice(slice, name, SHIPPED_COSTS, SHIPPED_NAMES)).toEqual([]);
  });

  it('should list every problem at once, each with its path', () => {
    const problems = validateSlice(
      {
        mode: 'enforce',
        failMode: 'sometimes',
        cost: 0,
        tiers: { pro: -1 },
        degrade: { at: 2, factor: 0 },
        colour: 'red',
        rules: [
          {
            name: 'Bad Name',
            dimension: 'planet',
            capacity: 0,
            rate: 'fast',
            mode: 'maybe',
            cost: 1.5,
            scope: 'galaxy',
            penalty: { threshold: 0, factor: 2, decay: 'never' },
          },
          { name: 'dup', dimension: 'ip', capacity: 1, rate: 1 },
          { name: 'dup', dimension: 'ip', capacity: 1, rate: 1 },
        ],
      },
      'p',
      COSTS,
    );
    for (const expected of [
      'p.failMode',
      'p.cost',
      'p.tiers.pro',
      'p.degrade.at',
      'p.degrade.factor',
      'p.degrade: needs a rule on the global dimension',
      'p.colour',
      'p.rules[0].name',
      'p.rules[0].dimension',
      'p.rules[0].capacity',
      'p.rules[0].rate',
      'p.rules[0].mode',
      'p.rules[0].cost',
      'p.rules[0].scope',
      'p.rules[0].penalty.threshold',
      'p.rules[0].penalty.factor',
      'p.rules[0].penalty.decay',
      'p.rules[2].name: "dup" is used twice',
    ]) {
      expect(
        problems.some((x) => x.startsWith(expected)),
        expected,
      ).toBe(true);
    }
  });

  it('should bound rates and capacities, so no rule can switch its limit off by size', () => {
    const rule = (capacity: unknown, rate: unknown) => ({
      mode: 'enforce' as const,
      rules: [{ name: 'r', dimension: 'ip', capacity, rate }],
    });
    expect(validateSlice(rule(10, '99999999999999999999999/s'), 'p', COSTS)).toEqual([
      'p.rules[0].rate: must lie between 1/30d and 1000000/s',
    ]);
    expect(validateSlice(rule(10, '1/100d'), 'p', COSTS)).toHaveLength(1);
    expect(validateSlice(rule(1e12, '1/s'), 'p', COSTS)).toEqual([
      'p.rules[0].capacity: must be an integer from 1 to 1000000000 (burst, in tokens)',
    ]);
    expect(validateSlice(rule(1_000_000_000, '1000000/s'), 'p', COSTS)).toEqual([]);
  });

  it('should need rules only when the lock is on', () => {
    expect(validateSlice({ mode: 'off' }, 'p', COSTS)).toEqual([]);
    expect(validateSlice({ mode: 'enforce', rules: [] }, 'p', COSTS)).toEqual([
      'p.rules: needs at least one rule when the lock is on',
    ]);
  });

  it('should take a stage of whole percents, only on an enforcing rule', () => {
    const rule = { name: 'r', dimension: 'user', capacity: 1, rate: 1 };
    expect(validateRule({ ...rule, stage: { subjects: 10, instances: 50 } }, 'r', [])).toEqual([]);
    expect(validateRule({ ...rule, stage: { subjects: 101 } }, 'r', [])).toEqual([
      'r.stage: must be {subjects?, instances?}, whole percents from 0 to 100',
    ]);
    expect(validateRule({ ...rule, stage: { share: 5 } }, 'r', [])).toEqual([
      'r.stage: must be {subjects?, instances?}, whole percents from 0 to 100',
    ]);
    expect(validateRule({ ...rule, mode: 'shadow', stage: { subjects: 5 } }, 'r', [])).toEqual([
      'r.stage: a shadow rule has no stage (use mode enforce)',
    ]);
  });

  it('should take failQueue only beside failMode queue, with a bounded wait and a fallback', () => {
    const rules = [{ name: 'r', dimension: 'ip', capacity: 1, rate: 1 }];
    const q = { mode: 'enforce', failMode: 'queue', rules };
    expect(validateSlice(q, 'p', COSTS)).toEqual([]);
    expect(
      validateSlice({ ...q, failQueue: { maxWait: '2s', then: 'closed' } }, 'p', COSTS),
    ).toEqual([]);
    expect(
      validateSlice({ ...q, failQueue: { maxWait: '1m', then: 'queue', size: 1 } }, 'p', COSTS),
    ).toEqual([
      'p.failQueue.size: unknown option (known: maxWait, then)',
      'p.failQueue.maxWait: must be a duration from 1 ms to 30 s, such as "2s"',
      'p.failQueue.then: must be one of local, closed, open',
    ]);
    expect(
      validateSlice({ ...q, failMode: 'local', failQueue: { maxWait: '2s' } }, 'p', COSTS),
    ).toEqual(['p.failQueue: only with failMode: queue']);
  });

  it('should take as cost exactly the names the products registered, and list them', () => {
    const slice = {
      mode: 'enforce',
      cost: 'inference',
      rules: [{ name: 'r', dimension: 'ip', capacity: 1, rate: 1 }],
    };
    expect(validateSlice(slice, 'p', ['inference', 'search'])).toEqual([]);
    expect(validateSlice({ ...slice, cost: 'tokens' }, 'p', ['inference', 'search'])).toEqual([
      'p.cost: must be an integer ≥ 1 or one of inference, search',
    ]);
    expect(validateSlice(slice, 'p', [])).toEqual([
      'p.cost: must be an integer ≥ 1 (no cost function is registered)',
    ]);
  });
});

describe('concurrency rules', () => {
  it('should validate a concurrency rule: no rate, no penalty, a lease from 1 s to 1 d', () => {
    const base = { name: 'c', dimension: 'app', algorithm: 'concurrency', capacity: 4 };
    expect(validateRule(base, 'r', [])).toEqual([]);
    expect(validateRule({ ...base, lease: '10m' }, 'r', [])).toEqual([]);
    expect(validateRule({ ...base, lease: '500ms' }, 'r', [])).toEqual([
      'r.lease: must be a duration from 1s to 1d (how long a lease lives if never given back)',
    ]);
    expect(validateRule({ ...base, rate: '1/s' }, 'r', [])[0]).toMatch(/^r\.rate: a concurrency/);
    expect(
      validateRule({ ...base, penalty: { threshold: 1, factor: 0.5, decay: 1000 } }, 'r', [])[0],
    ).toMatch(/^r\.penalty: a concurrency/);
    // `lease` belongs to the concurrency kind only.
    expect(validateRule({ ...base, algorithm: 'gcra', rate: 1, lease: '1m' }, 'r', [])[0]).toMatch(
      /^r\.lease: unknown option/,
    );
  });
});

describe('tokens rules', () => {
  it('should validate a tokens rule: a window of whole seconds, a count, no rate, cost or penalty', () => {
    const base = {
      name: 't',
      dimension: 'user',
      algorithm: 'tokens',
      capacity: 1000,
      window: '1m',
    };
    expect(validateRule(base, 'r', [])).toEqual([]);
    expect(
      validateRule({ ...base, window: '1d', count: 'prompt', perModel: true }, 'r', []),
    ).toEqual([]);
    expect(validateRule({ ...base, window: undefined }, 'r', [])[0]).toMatch(/^r\.window: must be/);
    expect(validateRule({ ...base, window: '1500ms' }, 'r', [])[0]).toMatch(/^r\.window: must be/);
    expect(validateRule({ ...base, count: 'all' }, 'r', [])[0]).toMatch(
      /^r\.count: must be one of/,
    );
    expect(validateRule({ ...base, rate: '1/s' }, 'r', [])).toContain(
      'r.rate: a tokens rule has no rate (capacity per window)',
    );
    expect(validateRule({ ...base, cost: 2 }, 'r', [])[0]).toMatch(/^r\.cost: a tokens rule/);
    // `window` belongs to the tokens kind only.
    expect(validateRule({ ...base, algorithm: 'gcra', rate: 1 }, 'r', [])[0]).toMatch(
      /^r\.window: unknown option/,
    );
  });

  it('should need the slice to name a registered token counter', () => {
    const slice = {
      mode: 'enforce',
      rules: [{ name: 't', dimension: 'app', algorithm: 'tokens', capacity: 10, window: '1m' }],
    };
    expect(validateSlice(slice, 'p', [], SHIPPED_NAMES)).toEqual([
      'p.tokens: a slice with tokens rules must name the token counter that sizes a request (e.g. inference)',
    ]);
    expect(validateSlice({ ...slice, tokens: 'inference' }, 'p', [], SHIPPED_NAMES)).toEqual([]);
    expect(validateSlice({ ...slice, tokens: 'words' }, 'p', [], SHIPPED_NAMES)).toEqual([
      'p.tokens: must be one of inference',
    ]);
  });
});

describe('paced rules (maxWaitMs)', () => {
  it('should take a wait of whole milliseconds up to a minute, on the kinds that pace only', () => {
    const base = { name: 'p', dimension: 'user', capacity: 5, rate: '10/s' };
    for (const maxWaitMs of [0, 1, 500, 60_000])
      for (const algorithm of [undefined, 'gcra', 'token-bucket'])
        expect(validateRule({ ...base, algorithm, maxWaitMs }, 'r', [])).toEqual([]);
    for (const maxWaitMs of [-1, 1.5, 60_001, '500', null])
      expect(validateRule({ ...base, maxWaitMs }, 'r', [])).toEqual([
        'r.maxWaitMs: must be an integer from 0 to 60000 (milliseconds)',
      ]);
    expect(
      validateRule(
        { name: 'c', dimension: 'app', algorithm: 'concurrency', capacity: 4, maxWaitMs: 100 },
        'r',
        [],
      ),
    ).toEqual(['r.maxWaitMs: only gcra and token-bucket rules can pace (not concurrency)']);
    expect(
      validateRule(
        { ...base, rate: undefined, algorithm: 'tokens', window: '1m', maxWaitMs: 100 },
        'r',
        [],
      ),
    ).toContain('r.maxWaitMs: only gcra and token-bucket rules can pace (not tokens)');
  });

  it('should check maxWaitMs through the slice validator the admin API shares', () => {
    const rule = { name: 'p', dimension: 'user', capacity: 5, rate: '10/s' };
    expect(
      validateSlice(
        { mode: 'enforce', rules: [{ ...rule, maxWaitMs: 500 }] },
        'p',
        [],
        SHIPPED_NAMES,
      ),
    ).toEqual([]);
    expect(
      validateSlice(
        { mode: 'enforce', rules: [{ ...rule, maxWaitMs: 90_000 }] },
        'p',
        [],
        SHIPPED_NAMES,
      ),
    ).toEqual(['p.rules[0].maxWaitMs: must be an integer from 0 to 60000 (milliseconds)']);
  });
});
