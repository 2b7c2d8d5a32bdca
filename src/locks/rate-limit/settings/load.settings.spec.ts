import { describe, expect, it } from 'vitest';
import { defaultLoadSettings, validateLoad } from './load.settings.js';
import { loadAction, levelOf } from '../core/load.types.js';

describe('degrade order', () => {
  const s = defaultLoadSettings();

  it.each([
    [0, 'normal'],
    [0.69, 'normal'],
    [0.7, 'soft'],
    [0.94, 'soft'],
    [0.95, 'hard'],
    [1, 'hard'],
  ] as const)('should put a fill of %s at level %s', (fill, level) => {
    expect(levelOf(fill, s)).toBe(level);
  });

  it.each([
    ['normal', 2, false, 'none'],
    ['soft', 0, false, 'none'],
    ['soft', 1, false, 'cache'],
    ['soft', 2, false, 'reduce'],
    ['soft', 9, true, 'exempt'],
    ['hard', 0, false, 'refuse'],
    ['hard', 2, true, 'exempt'],
  ] as const)(
    'should have a policy at %s, rank %s, critical %s: %s',
    (level, rank, critical, action) => {
      expect(loadAction(level, rank, critical, s)).toBe(action);
    },
  );

  it('should list every bad load setting with its path', () => {
    const { problems } = validateLoad(
      { soft: 0.9, hard: 0.8, poll: '5s', reduceFrom: 12, pin: 'panic', extra: 1 },
      'CONFIG_FILE rateLimit.load',
    );
    expect(problems).toEqual([
      expect.stringMatching(/^CONFIG_FILE rateLimit\.load\.extra: unknown option/),
      'CONFIG_FILE rateLimit.load: soft (0.9) must be below hard (0.8)',
      'CONFIG_FILE rateLimit.load.poll: must be a duration from 20 to 1000 ms',
      'CONFIG_FILE rateLimit.load.reduceFrom: must be an integer from 0 to 9',
      'CONFIG_FILE rateLimit.load.pin: must be one of normal, soft, hard',
    ]);
  });

  it('should shed suspects and anonymous requests first by default, and read a list of classes', () => {
    expect(s.shedFirst).toEqual(['suspect', 'anonymous']);
    expect(validateLoad({ shedFirst: ['suspect'] }, 'l').load.shedFirst).toEqual(['suspect']);
    expect(validateLoad({ shedFirst: [] }, 'l').load.shedFirst).toEqual([]);
    expect(validateLoad({ shedFirst: ['bots'] }, 'l').problems).toEqual([
      'l.shedFirst: must be a list of suspect, anonymous (empty: none)',
    ]);
  });
});
