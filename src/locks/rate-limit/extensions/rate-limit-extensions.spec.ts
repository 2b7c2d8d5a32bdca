import { describe, expect, it } from 'vitest';
import { RateLimitExtensions, type SubjectExtractor } from './rate-limit-extensions.js';

const chat: SubjectExtractor = () => ({ value: '42', personal: true });

describe(RateLimitExtensions.name, () => {
  it('should refuse a cost name or a dimension registered twice, a bad name and an unknown dimension', () => {
    const ext = new RateLimitExtensions();
    ext.register({ costs: { inference: () => 2 }, subjects: { chat } });
    expect(() => ext.register({ costs: { inference: () => 1 } })).toThrow(/registered twice/);
    expect(() => ext.register({ subjects: { chat } })).toThrow(/two extractors/);
    expect(() => ext.register({ costs: { '12': () => 1 } })).toThrow(/must match/);
    expect(() => ext.register({ subjects: { planet: chat } as never })).toThrow(
      /unknown dimension/,
    );
    expect(ext.costNames()).toEqual(['inference']);
    expect(ext.subject('chat')).toBe(chat);
    expect(ext.subject('bot')).toBeUndefined();
  });

  it('should refuse an attribute or claim registered twice or badly named', () => {
    const ext = new RateLimitExtensions();
    const role = () => 'admin';
    ext.register({
      attributes: { chatType: () => 'group', role },
      claims: { update: () => undefined },
    });
    expect(() => ext.register({ attributes: { role } })).toThrow(
      /attribute "role" is registered twice/,
    );
    expect(() => ext.register({ claims: { update: () => undefined } })).toThrow(
      /claim "update" is registered twice/,
    );
    expect(() => ext.register({ attributes: { 'chat-type': role } })).toThrow(/must match/);
    expect(() => ext.register({ attributes: { Role: role } })).toThrow(/must match/);
    expect(ext.attributeNames()).toEqual(['chatType', 'role']);
    expect(ext.attribute('role')).toBe(role);
    expect(ext.claimNames()).toEqual(['update']);
  });
});
