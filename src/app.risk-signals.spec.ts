import { describe, expect, it } from 'vitest';
import { signalOf } from './app.risk-signals.js';

describe(signalOf.name, () => {
  it.each([
    [401, 'bad_signature', undefined, 'bad_signature'],
    [401, 'nonce_replayed', undefined, 'bad_signature'],
    [401, 'admin_unauthorized', undefined, undefined],
    [400, 'validation_failed', undefined, 'validation_failed'],
    [400, 'bad_request', undefined, undefined],
    [404, 'not_found', undefined, 'not_found'],
    [200, undefined, 'bloom-absent', 'bloom_absent'],
    [200, undefined, 'cache-hit', undefined],
    [429, 'rate_limited', undefined, undefined],
  ] as const)(
    'should read status %s, code %s, shield %s as %s',
    (status, problem, shield, signal) => {
      expect(signalOf(status, problem, shield)).toBe(signal);
    },
  );

  it('should read a refusal its lock marked benign (a key refreshed within its grace) as no signal', () => {
    expect(signalOf(401, 'key_expired', undefined, true)).toBeUndefined();
    expect(signalOf(401, 'key_expired', undefined, false)).toBe('bad_signature');
  });
});
