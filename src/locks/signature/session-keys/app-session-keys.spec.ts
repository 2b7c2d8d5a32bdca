import { describe, expect, it } from 'vitest';
import { parseAppSessionKeys } from './app-session-keys.js';

describe(parseAppSessionKeys.name, () => {
  const base = { maxScope: ['search'] };

  it('should default refreshGrace to 300 s and read a duration or 0', () => {
    expect(parseAppSessionKeys(base, 'a').value?.refreshGraceSeconds).toBe(300);
    expect(
      parseAppSessionKeys({ ...base, refreshGrace: '2m' }, 'a').value?.refreshGraceSeconds,
    ).toBe(120);
    expect(parseAppSessionKeys({ ...base, refreshGrace: 0 }, 'a').value?.refreshGraceSeconds).toBe(
      0,
    );
  });

  it.each([-1, '2h', 'soon', 1.5])('should refuse refreshGrace %s with its path', (v) => {
    expect(
      parseAppSessionKeys({ ...base, refreshGrace: v }, 'apps[0].sessionKeys').problems,
    ).toEqual([
      "apps[0].sessionKeys.refreshGrace: must be 0 or a duration such as 300, '90s', '5m' (at most 1h)",
    ]);
  });
});
