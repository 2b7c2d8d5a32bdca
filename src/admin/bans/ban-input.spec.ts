import { describe, expect, it } from 'vitest';
import { ProblemException } from '../../common/problem.exception.js';
import { parseBan } from './ban-input.js';

const NOW = 1_800_000_000_000;

function problems(body: unknown): string[] {
  try {
    parseBan(body, NOW);
  } catch (e) {
    expect(e).toBeInstanceOf(ProblemException);
    const r = (e as ProblemException).getResponse() as { error: string; problems: string[] };
    expect(r.error).toBe('invalid_ban');
    return r.problems;
  }
  return [];
}

describe(parseBan.name, () => {
  it('should read a scoped, a global and an app ban', () => {
    expect(
      parseBan({ dimension: 'user', subject: 'u1', app: 'acme', ttlSeconds: 60, reason: 'r' }, NOW),
    ).toEqual({ dimension: 'user', id: 'u1', app: 'acme', untilMs: NOW + 60_000, reason: 'r' });
    const until = new Date(NOW + 3_600_000).toISOString();
    expect(parseBan({ dimension: 'ip', subject: '203.0.113.7', global: true, until }, NOW)).toEqual(
      { dimension: 'ip', id: '203.0.113.7', app: null, untilMs: NOW + 3_600_000 },
    );
    expect(parseBan({ dimension: 'app', subject: 'acme', ttlSeconds: 1 }, NOW).app).toBeNull();
  });

  it('should list every problem of a bad body at once', () => {
    expect(problems({ dimension: 'bot', subject: '', extra: 1 })).toEqual([
      'extra: unknown field',
      'dimension: must be one of user, chat, ip, app',
      'subject: must be a string of 1 to 256 characters',
      'until: give until (ISO time) or ttlSeconds, exactly one',
    ]);
    expect(problems({ dimension: 'user', subject: 'u', ttlSeconds: 60 })).toHaveLength(1);
    expect(
      problems({ dimension: 'user', subject: 'u', app: 'a', until: '2000-01-01T00:00:00Z' }),
    ).toEqual(['until: must be in the future']);
    expect(
      problems({ dimension: 'user', subject: 'u', app: 'a', ttlSeconds: 1, reason: 'a\nb' }),
    ).toEqual(['reason: must be 1 to 200 printable characters']);
    expect(problems([])).toEqual(['body: must be a JSON object']);
  });
});
