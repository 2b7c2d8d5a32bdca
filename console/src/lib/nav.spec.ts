import { describe, expect, it } from 'vitest';
import { NAV, navGroups, pageOf } from './nav.js';

describe(pageOf.name, () => {
  it('should read the page from the hash and fall back to the overview', () => {
    expect(pageOf('#/bloom')).toBe('bloom');
    expect(pageOf('#/apps?x=1')).toBe('apps');
    expect(pageOf('#/nope')).toBe('overview');
    expect(pageOf('')).toBe('overview');
  });
});

describe(navGroups.name, () => {
  it('should list the Telegram pages (bots, queues, dead letters) as ready', () => {
    const telegram = navGroups().find((g) => g.group === 'Telegram');
    expect(telegram?.entries.map((e) => e.id)).toEqual(['bots', 'queues', 'dead-letters']);
    expect(telegram?.entries.some((e) => e.soon)).toBe(false);
    expect(NAV.filter((e) => !e.soon)).toHaveLength(13);
  });
});
