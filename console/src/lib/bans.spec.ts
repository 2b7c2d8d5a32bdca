import { describe, expect, it } from 'vitest';
import { EMPTY_BAN_FORM, banBody, banScope, type BanView } from './bans.js';

describe(banBody.name, () => {
  it('should name the app of a user ban, or say global, and turn hours into seconds', () => {
    const f = { ...EMPTY_BAN_FORM, subject: ' user-42 ', app: 'acme-web', hours: '2' };
    expect(banBody(f)).toEqual({
      dimension: 'user',
      subject: 'user-42',
      app: 'acme-web',
      ttlSeconds: 7200,
    });
    expect(banBody({ ...f, global: true, reason: ' spam ' })).toEqual({
      dimension: 'user',
      subject: 'user-42',
      global: true,
      ttlSeconds: 7200,
      reason: 'spam',
    });
  });

  it('should give an app ban no app', () => {
    const body = banBody({ ...EMPTY_BAN_FORM, dimension: 'app', subject: 'x', app: 'y' });
    expect(body).not.toHaveProperty('app');
    expect(body).not.toHaveProperty('global');
  });
});

describe(banScope.name, () => {
  const ban: BanView = {
    id: 'b1',
    dimension: 'user',
    subject: 'hash',
    app: null,
    until: '2030-01-01T00:00:00.000Z',
    reason: null,
    createdAt: '2029-12-31T00:00:00.000Z',
    actor: 'env',
  };
  it('should say every app for a global ban and the app otherwise', () => {
    expect(banScope(ban)).toBe('every app');
    expect(banScope({ ...ban, app: 'acme-web' })).toBe('acme-web');
    expect(banScope({ ...ban, dimension: 'app', subject: 'acme-web' })).toBe('acme-web');
  });
});
