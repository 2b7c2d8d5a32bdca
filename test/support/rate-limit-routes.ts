/**
 * Routes and policies for the rate-limit tests: each route is protected by a
 * test policy that turns on the rate-limit lock only, so the tests do not
 * depend on the shipped routes or on other locks.
 */
import { Controller, Get, HttpCode, Module, Post, Req } from '@nestjs/common';
import { RateLimitModule } from '../../src/locks/rate-limit/rate-limit.module.js';
import type { RequestState } from '../../src/http/request-state.js';
import { Protect } from '../../src/chain/protect.decorator.js';
import type { RoutePolicy } from '../../src/config/policy.types.js';
import type { RampartConfig } from '../../src/config/config.types.js';
import { AnyRequest, header, requestState } from '../../src/http/http-context.js';
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

  /** A webhook-like route: a claim on `update_id`, onLimit flag; answers what the lock left in the state. */
  @Post('update')
  @HttpCode(200)
  @Protect('rl-update')
  update(@Req() req: AnyRequest): Pick<RequestState, 'duplicate' | 'limited'> {
    const s = requestState(req);
    return { duplicate: s.duplicate === true, limited: s.limited };
  }

  @Get('admin')
  @Protect('rl-admin')
  admin(): { ok: true } {
    return { ok: true };
  }
}

/** Test-only registrations: an attribute from a header, and a claim on the body's `update_id` (TTL 60 s). */
const feature = RateLimitModule.forFeature({
  attributes: { rlTestRole: (c) => header(c.req, 'x-test-role') },
  claims: {
    'rl-test-update': (c) => {
      const id = (c.req as { body?: { update_id?: unknown } }).body?.update_id;
      return typeof id === 'number' ? { id: String(id), ttlMs: 60_000 } : undefined;
    },
  },
});

@Module({ imports: [feature], controllers: [RateLimitTestController] })
export class RateLimitRoutesModule {}

const only = (slice: RateLimitSlice, critical = false): RoutePolicy => ({
  critical,
  locks: { rateLimit: slice },
});

/** Adds the three test policies to a loaded config (slices may be overridden per test). */
export function withRateLimitPolicies(
  slices: {
    plain?: RateLimitSlice;
    infer?: RateLimitSlice;
    admin?: RateLimitSlice;
    update?: RateLimitSlice;
  },
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
      'rl-update': only(
        slices.update ?? {
          mode: 'enforce',
          claim: 'rl-test-update',
          onLimit: 'flag',
          rules: [
            {
              name: 'per-ip',
              dimension: 'ip',
              capacity: 2,
              rate: '1/min',
              unless: { rlTestRole: ['admin'] },
            },
          ],
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
