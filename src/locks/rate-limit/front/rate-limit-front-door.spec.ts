import { describe, expect, it, vi } from 'vitest';
import { RateLimitFrontDoor } from './rate-limit-front-door.js';

interface Known {
  addressBans?: boolean;
  denies?: boolean;
  shedding?: boolean;
}

/** A front door whose route table is a spy: whether a request made it look anything up. */
function door(known: Known) {
  const routes = vi.fn(() => []);
  const d = new RateLimitFrontDoor(
    {} as never,
    { routes } as never,
    { mayMatchAddress: () => known.addressBans === true } as never,
    {} as never,
    {} as never,
    {} as never,
    { refusing: known.denies === true } as never,
    {} as never,
    { classes: ['suspect'], shedding: () => known.shedding === true } as never,
    { now: () => 0 } as never,
  );
  return { check: d.check, routes };
}

const unsigned = { method: 'GET', url: '/v1/whoami', headers: {} };
const signed = { ...unsigned, headers: { 'x-app-id': 'a', 'x-signature': 's' } };

describe(RateLimitFrontDoor.name, () => {
  it('should look nothing up while it knows nothing (no ban, no deny-cache entry, nothing shed)', () => {
    const { check, routes } = door({});
    expect(check(unsigned)).toBeUndefined();
    expect(check(signed)).toBeUndefined();
    expect(routes).not.toHaveBeenCalled();
  });

  it('should look nothing up for a signed request when only the deny cache holds something', () => {
    const { check, routes } = door({ denies: true });
    expect(check(signed)).toBeUndefined();
    expect(routes).not.toHaveBeenCalled();
    check(unsigned);
    expect(routes).toHaveBeenCalledTimes(1);
  });

  it('should look the route up when an address ban or shedding could refuse the request', () => {
    for (const known of [{ addressBans: true }, { shedding: true }]) {
      const { check, routes } = door(known);
      check(signed);
      expect(routes).toHaveBeenCalledTimes(1);
    }
  });
});
