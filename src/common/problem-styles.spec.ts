import { describe, expect, it } from 'vitest';
import type { ProblemBody } from './problem.exception.js';
import { ProblemStyle, ProblemStyles } from './problem-styles.js';

const flat: ProblemStyle = { name: 'flat', body: (p) => ({ code: p.error }) };
const other: ProblemStyle = { name: 'other', body: () => ({}) };

describe(ProblemStyles.name, () => {
  it('should give no style where none is registered', () => {
    const styles = new ProblemStyles();
    expect(styles.forTarget('/v1/models')).toBeUndefined();
    styles.register(['/v1/models'], flat);
    expect(styles.forTarget('/v1/search?q=x')).toBeUndefined();
    expect(styles.forTarget(undefined)).toBeUndefined();
  });

  it.each(['/v1/models', '/v1/models?limit=2', '/v1/models/', '/V1/Models'])(
    'should find the style of %s without its query, trailing slash or letter case',
    (target) => {
      const styles = new ProblemStyles();
      styles.register(['/v1/models'], flat);
      expect(styles.forTarget(target)).toBe(flat);
    },
  );

  it('should match exact paths only', () => {
    const styles = new ProblemStyles();
    styles.register(['/v1/models'], flat);
    expect(styles.forTarget('/v1/models/gpt-4o')).toBeUndefined();
    expect(styles.forTarget('/v1')).toBeUndefined();
  });

  it('should refuse a second style for a path, and accept the same one again', () => {
    const styles = new ProblemStyles();
    styles.register(['/v1/models'], flat);
    styles.register(['/v1/models'], flat);
    expect(() => styles.register(['/v1/models/'], other)).toThrow(/"flat" is already registered/);
  });

  it('should render a problem through the style it found', () => {
    const styles = new ProblemStyles();
    styles.register(['/a'], flat);
    const problem: ProblemBody = { type: 't', title: 'T', status: 400, error: 'bad' };
    expect(styles.forTarget('/a')!.body(problem)).toEqual({ code: 'bad' });
  });
});
