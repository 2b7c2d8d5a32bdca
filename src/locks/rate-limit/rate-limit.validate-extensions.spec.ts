import { describe, expect, it } from 'vitest';
import { claimUsable } from './rate-limit.validate-extensions.js';
import { validateSlice } from './rate-limit.validate.js';

const NAMES = { attributes: ['chatType', 'command', 'role'], claims: ['update'] };
const slice = (extra: Record<string, unknown> = {}, rule: Record<string, unknown> = {}) => ({
  mode: 'enforce',
  rules: [{ name: 'r', dimension: 'chat', capacity: 5, rate: '1/s', ...rule }],
  ...extra,
});

describe('validateSlice (conditions, claim, onLimit)', () => {
  it('should accept conditions on registered attributes, a registered claim and both onLimit values', () => {
    const ok = slice(
      { claim: 'update', onLimit: 'flag' },
      { when: { chatType: ['group', 'supergroup'] }, unless: { role: ['admin'] } },
    );
    expect(validateSlice(ok, 'p', [], NAMES)).toEqual([]);
    expect(validateSlice({ ...ok, onLimit: 'reject' }, 'p', [], NAMES)).toEqual([]);
  });

  it('should refuse an unknown attribute, a bad value list, an unknown claim and a bad onLimit, each with its path', () => {
    const bad = slice(
      { claim: 'message', onLimit: 'drop' },
      { when: { chatKind: ['group'], command: [] }, unless: 'admin' },
    );
    expect(validateSlice(bad, 'p', [], NAMES)).toEqual([
      'p.rules[0].when.chatKind: unknown attribute (known: chatType, command, role)',
      'p.rules[0].when.command: must be a list of 1-64 strings',
      'p.rules[0].unless: must map attribute names to lists of values, e.g. {chatType: [group]}',
      'p.claim: must be one of update',
      'p.onLimit: must be one of reject, flag, stale',
    ]);
  });

  it('should refuse attributes and claims when no product registered any', () => {
    expect(validateSlice(slice({ claim: 'update' }, { when: { role: ['x'] } }), 'p', [])).toEqual([
      'p.rules[0].when.role: unknown attribute (no attribute is registered)',
      'p.claim: unknown claim (no claim is registered)',
    ]);
  });
});

describe(claimUsable.name, () => {
  it('should take an id with an integer TTL of 1 ms to a day, and refuse bad TTLs and ids', () => {
    expect(claimUsable({ id: '123', ttlMs: 60_000 })).toBe(true);
    expect(claimUsable({ id: '123', ttlMs: 86_400_000 })).toBe(true);
    for (const ttlMs of [0, -5, 1.5, Number.NaN, 86_400_001, '1000'])
      expect(claimUsable({ id: '123', ttlMs })).toBe(false);
    expect(claimUsable({ id: '', ttlMs: 1000 })).toBe(false);
    expect(claimUsable({ id: 'x'.repeat(257), ttlMs: 1000 })).toBe(false);
    expect(claimUsable(undefined)).toBe(false);
  });
});
