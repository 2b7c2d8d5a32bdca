import { describe, expect, it } from 'vitest';
import { SHIPPED_POLICIES } from '../app.policies.js';
import { relayOf } from './telegram-forward.js';
import { withBotPolicies } from './telegram-policies.js';

describe(withBotPolicies.name, () => {
  it('should give each bot its own policy with its failMode, and a breaker of its own in forward mode', () => {
    const out = withBotPolicies(SHIPPED_POLICIES, {
      bots: [
        { id: 'a', mode: 'forward', failMode: 'closed' },
        { id: 'b', mode: 'builtin' },
        { id: 'c', mode: 'forward', maxConnections: 100 },
      ],
    });
    expect(out['telegram-a']?.locks.rateLimit).toMatchObject({
      failMode: 'closed',
      claim: 'update',
    });
    expect(out['telegram-a']?.locks.circuitBreaker).toMatchObject({
      mode: 'enforce',
      backend: 'telegram-a',
      capacity: 40, // Telegram's default max_connections: the bulkhead holds every delivery in flight
    });
    expect(out['telegram-c']?.locks.circuitBreaker).toMatchObject({ capacity: 100 });
    expect(out['telegram-b']?.locks.rateLimit).toMatchObject({ failMode: 'local' });
    expect(out['telegram-b']?.locks.circuitBreaker).toMatchObject({ mode: 'off' });
    expect(SHIPPED_POLICIES['telegram-a']).toBeUndefined(); // the shipped set is not changed
  });

  it('should keep a bot policy CONFIG_FILE defines', () => {
    const own = { locks: { rateLimit: { mode: 'off' as const } } };
    const out = withBotPolicies(
      { ...SHIPPED_POLICIES, 'telegram-a': own },
      { bots: [{ id: 'a', mode: 'forward' }] },
    );
    expect(out['telegram-a']).toBe(own);
  });
});

describe(relayOf.name, () => {
  it('should relay only a Bot API method call', () => {
    expect(relayOf('{"method":"sendMessage","chat_id":1,"text":"hi"}')).toEqual({
      method: 'sendMessage',
      chat_id: 1,
      text: 'hi',
    });
    for (const body of ['', 'ok', '{}', '[]', '{"method":"../x"}', '{"method":5}'])
      expect(relayOf(body)).toBeUndefined();
  });
});
