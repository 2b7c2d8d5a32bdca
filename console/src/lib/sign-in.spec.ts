import { describe, expect, it } from 'vitest';
import { ApiError } from './api.js';
import { signInMessage } from './sign-in.js';

const err = (status: number, error: string) => new ApiError({ status, error, title: error });

describe(signInMessage.name, () => {
  it('should say clearly that a wrong token was refused', () => {
    expect(signInMessage(err(401, 'admin_unauthorized'))).toBe(
      'That token was refused. Check it and try again.',
    );
  });

  it('should explain an admin API without credentials, throttling and a service that is down', () => {
    expect(signInMessage(err(503, 'admin_not_configured'))).toMatch(/ADMIN_TOKEN/);
    expect(signInMessage(err(429, 'rate_limited'))).toMatch(/Too many attempts/);
    expect(signInMessage(err(0, 'network_error'))).toMatch(/did not answer/);
  });
});
