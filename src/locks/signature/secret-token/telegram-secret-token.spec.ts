import { describe, expect, it } from 'vitest';
import { verifyTelegramSecretToken } from './telegram-secret-token.js';

const current = 'cur_' + 'A'.repeat(40);
const previous = 'prev-' + 'b'.repeat(40);

describe(verifyTelegramSecretToken.name, () => {
  it('should accept the current and, during a rotation, the previous token', () => {
    expect(verifyTelegramSecretToken(current, { current, previous })).toBe('current');
    expect(verifyTelegramSecretToken(previous, { current, previous })).toBe('previous');
    expect(verifyTelegramSecretToken(previous, { current })).toBe(false);
  });

  it.each([
    ['missing', undefined],
    ['repeated', [current, current]],
    ['empty', ''],
    ['wrong case', current.toLowerCase()],
    ['a prefix', current.slice(0, -1)],
    ['longer', current + 'A'],
    ['257 characters', 'a'.repeat(257)],
    ['illegal characters', current.slice(0, -1) + '!'],
    ['a bot token (has ":")', '123456:ABC-DEF'],
  ])('should refuse a %s header', (_what, value) => {
    expect(verifyTelegramSecretToken(value, { current, previous })).toBe(false);
  });

  it('should accept a 1- and a 256-character token and refuse all with an empty current secret', () => {
    expect(verifyTelegramSecretToken('x', { current: 'x' })).toBe('current');
    expect(verifyTelegramSecretToken('y'.repeat(256), { current: 'y'.repeat(256) })).toBe(
      'current',
    );
    expect(verifyTelegramSecretToken('', { current: '' })).toBe(false);
  });
});
