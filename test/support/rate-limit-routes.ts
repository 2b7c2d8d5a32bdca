/**
 * Routes and policies for the rate-limit tests: each route is protected by a
 * test policy that turns on the rate-limit lock only, so the tests do not
 * depend on the shipped routes or on other locks.
 */
import { Controller, Get, HttpCode, Module, Post, Req } from '@nestjs/common';
import { Protect } from '../../src/chain/protect.decorator.js';
import type { RoutePolicy } from '../../src/config/policy.types.js';
import type { RampartConfig } from '../../src/config/config.types.js';
import { AnyRequest, requestState } from '../../src/http/http-context.js';
import type { RateLimitSlice } from '../../src/locks/rate-limit/rate-limit.types.js';

@Controller('rl-test')
class RateLimitTestController {
  @Get('plain')
  @Protect('rl-plain')
  plain(@Req() req: AnyRequest): { ok: true; degraded: boolean } {
    return { ok: true, degraded: requestState(req).degraded === true };
  }

  @Post('infer')
  @HttpCode(200)
  @Protect('rl-infer')
  infer(): { ok: true } {
    return { ok: true };
  }

  @Get('admin')
  @Protect('rl-admin')
  admin(): { ok: true } {
    return { ok: true };
  }
}

@Module({ controllers: [RateLimitTestController] })
export class RateLimitRoutesModule {}

const only = (slice: RateLimitSlice, critical = false): RoutePolicy => ({
  critical,
  locks: { rateLimit: slice },
});

/** Adds the three test policies to a loaded config (slices may be overridden per test). */
export function withRateLimitPolicies(
  slices: { plain?: RateLimitSlice; infer?: RateLimitSlice; admin?: RateLimitSlice },
  sections: Record<string, unknown> = {},
): (c: RampartConfig) => RampartConfig {
  return (c) => ({
    ...c,
    sections: { ...c.sections, ...sections },
    policies: {
      ...c.policies,
      'rl-plain': only(
        slices.plain ?? {
          mode: 'enforce',
          rules: [{ name: 'per-ip', dimension: 'ip', capacity: 3, rate: '1/min' }],
        },
      ),
      'rl-infer': only(
        slices.infer ?? {
          mode: 'enforce',
          cost: 'inference',
          rules: [{ name: 'per-user', dimension: 'user', capacity: 10, rate: '1/min' }],
        },
      ),
      'rl-admin': only(
        slices.admin ?? {
          mode: 'enforce',
          rules: [{ name: 'global', dimension: 'global', capacity: 1, rate: '1/h' }],
        },
        true,
      ),
    },
  });
}
