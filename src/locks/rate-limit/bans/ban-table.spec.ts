import { describe, expect, it } from 'vitest';
import { BanTable } from './ban-table.js';
import { MAX_BANS, type BanEntry } from './ban.types.js';

const NOW = 1_800_000_000_000;
const ban = (over: Partial<BanEntry> = {}): BanEntry => ({
  id: 'b1',
  dimension: 'user',
  subject: 'h1',
  app: 'acme',
  untilMs: NOW + 60_000,
  ...over,
});

describe(BanTable.name, () => {
  it('should match a ban for its app only, and a global ban for every app', () => {
    const t = new BanTable();
    t.replace([ban(), ban({ id: 'b2', subject: 'h2', app: null })], NOW);
    expect(t.find('user', 'h1', 'acme', NOW)?.id).toBe('b1');
    expect(t.find('user', 'h1', 'other', NOW)).toBeUndefined();
    expect(t.find('user', 'h1', undefined, NOW)).toBeUndefined();
    expect(t.find('user', 'h2', 'other', NOW)?.id).toBe('b2');
    expect(t.find('chat', 'h1', 'acme', NOW)).toBeUndefined();
    expect(t.dimensions()).toEqual(['user']);
  });

  it('should stop matching at until, and drop lapsed bans when filled', () => {
    const t = new BanTable();
    t.replace([ban(), ban({ id: 'old', subject: 'h3', untilMs: NOW - 1 })], NOW);
    expect(t.size).toBe(1);
    expect(t.find('user', 'h1', 'acme', NOW + 59_999)).toBeDefined();
    expect(t.find('user', 'h1', 'acme', NOW + 60_000)).toBeUndefined();
  });

  it('should hold at most MAX_BANS, keeping those that last longest', () => {
    const t = new BanTable();
    const many = Array.from({ length: MAX_BANS + 5 }, (_, i) =>
      ban({ id: `b${i}`, subject: `h${i}`, untilMs: NOW + 1_000 + i }),
    );
    t.replace(many, NOW);
    expect(t.size).toBe(MAX_BANS);
    expect(t.find('user', 'h0', 'acme', NOW)).toBeUndefined();
    expect(t.find('user', `h${MAX_BANS + 4}`, 'acme', NOW)).toBeDefined();
  });
});
