import { describe, expect, it } from 'vitest';
import { fail, signatureProblem } from './signature.problems.js';

describe(signatureProblem.name, () => {
  it('should answer 401 with the scheme challenge and the error code', () => {
    const e = signatureProblem(fail('replayed_nonce', 'hmac', 'x'));
    expect(e.getStatus()).toBe(401);
    expect(e.problem.error).toBe('replayed_nonce');
    expect(e.headers['www-authenticate']).toBe(
      'Rampart-HMAC-SHA256 realm="rampart", error="replayed_nonce"',
    );
    expect(
      signatureProblem(fail('bad_signature', 'rfc9421', 'x')).headers['www-authenticate'],
    ).toBe('Signature realm="rampart", error="bad_signature"');
    expect(
      signatureProblem(fail('missing_header', 'none', 'x')).headers['www-authenticate'],
    ).toMatch(/^Rampart-HMAC-SHA256 .*, Signature realm="rampart"/);
  });

  it('should answer one code with the challenge of the scheme used, whichever scheme came first', () => {
    const challenge = (scheme: 'hmac' | 'rfc9421') =>
      signatureProblem(fail('clock_skew', scheme, 'x')).headers['www-authenticate'];
    expect(challenge('hmac')).toBe('Rampart-HMAC-SHA256 realm="rampart", error="clock_skew"');
    expect(challenge('rfc9421')).toBe('Signature realm="rampart", error="clock_skew"');
    expect(challenge('hmac')).toBe('Rampart-HMAC-SHA256 realm="rampart", error="clock_skew"');
  });

  it('should give every refusal its own body (the filter adds the request id) and share frozen challenge headers', () => {
    const a = signatureProblem(fail('bad_signature', 'hmac', 'x'));
    const b = signatureProblem(fail('bad_signature', 'hmac', 'x'));
    a.problem.request_id = 'r1';
    expect(b.problem.request_id).toBeUndefined();
    expect(a.headers).toBe(b.headers);
    expect(Object.isFrozen(a.headers)).toBe(true);
    expect(Object.keys(b.problem)).toEqual(['type', 'title', 'status', 'error', 'detail']);
    const skew = signatureProblem(fail('clock_skew', 'hmac', 'x', { serverTime: 42 }));
    expect(Object.keys(skew.problem)).toEqual([
      'type',
      'title',
      'status',
      'error',
      'server_time',
      'detail',
    ]);
  });

  it('should add the server time to clock_skew', () => {
    expect(
      signatureProblem(fail('clock_skew', 'hmac', 'x', { serverTime: 42 })).problem.server_time,
    ).toBe(42);
  });

  it('should show the string to sign only for debug apps', () => {
    expect(
      signatureProblem(fail('bad_signature', 'hmac', 'x', { stringToSign: 's', debug: false }))
        .problem.string_to_sign,
    ).toBeUndefined();
    expect(
      signatureProblem(fail('bad_signature', 'hmac', 'x', { stringToSign: 's', debug: true }))
        .problem.string_to_sign,
    ).toBe('s');
  });

  it('should answer 503 with Retry-After when the nonce store is down', () => {
    const e = signatureProblem(fail('nonce_store_unavailable', 'hmac', 'x'));
    expect(e.getStatus()).toBe(503);
    expect(e.headers['retry-after']).toBe('1');
    expect(e.headers['www-authenticate']).toBeUndefined();
  });
});
