import { describe, expect, it } from 'vitest';
import { validateSlice } from '../rate-limit.validate.js';
import { validateRule } from '../rate-limit.validate-rule.js';
import { compileSlice } from './compile-policy.js';
import { gcraWarm } from '../core/kinds/gcra-warm.js';

const NAMES = { attributes: [], claims: [], tokens: [] };
const base = { name: 'w', dimension: 'user', capacity: 5, rate: '10/s' };

describe('warm-up rules (warmUp)', () => {
  it('should take a duration from 1 s to 10 min, on gcra rules only', () => {
    for (const warmUp of ['1s', '30s', '10m', 1000, 600_000])
      for (const algorithm of [undefined, 'gcra'])
        expect(validateRule({ ...base, algorithm, warmUp, maxWaitMs: 500 }, 'r', [])).toEqual([]);
    for (const warmUp of ['999ms', '11m', 0, -1, 'soon', null, true])
      expect(validateRule({ ...base, warmUp }, 'r', [])).toEqual([
        'r.warmUp: must be a duration from 1s to 10m (e.g. "30s")',
      ]);
    expect(validateRule({ ...base, algorithm: 'token-bucket', warmUp: '30s' }, 'r', [])).toEqual([
      'r.warmUp: only gcra rules can warm up (not token-bucket)',
    ]);
    expect(
      validateRule(
        { name: 'c', dimension: 'app', algorithm: 'concurrency', capacity: 4, warmUp: '30s' },
        'r',
        [],
      ),
    ).toContain('r.warmUp: only gcra rules can warm up (not concurrency)');
  });

  it('should check warmUp through the slice validator the admin API shares, and compile it to kind w', () => {
    const ok = { mode: 'enforce', rules: [{ ...base, warmUp: '30s' }] };
    expect(validateSlice(ok, 'p', [], NAMES)).toEqual([]);
    expect(
      validateSlice({ mode: 'enforce', rules: [{ ...base, warmUp: '1h' }] }, 'p', [], NAMES),
    ).toEqual(['p.rules[0].warmUp: must be a duration from 1s to 10m (e.g. "30s")']);
    const none = () => undefined;
    const compiled = compileSlice(ok as never, 'p', {
      cost: none,
      subject: none,
      attribute: none,
      claim: none,
    });
    expect(compiled.rules[0]).toMatchObject({ kind: gcraWarm.code, warmUpUs: 30_000_000 });
    const plain = compileSlice({ mode: 'enforce', rules: [base] } as never, 'p', {
      cost: none,
      subject: none,
      attribute: none,
      claim: none,
    });
    expect(plain.rules[0]).toMatchObject({ kind: 'g', warmUpUs: undefined });
  });
});
