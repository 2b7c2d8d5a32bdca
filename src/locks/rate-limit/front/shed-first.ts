import { Inject, Injectable } from '@nestjs/common';
import { CLOCK, type Clock } from '../../../common/clock.js';
import { ProblemException } from '../../../common/problem.exception.js';
import type { TappedResponse } from '../../../common/response-taps.js';
import { type AnyRequest, requestState } from '../../../http/http-context.js';
import type { ShedClass } from '../core/load.types.js';
import type { RateLimitSlice } from '../core/rate-limit-slice.types.js';
import type { SubjectContext } from '../extensions/rate-limit-extensions.js';
import { LoadMonitor } from '../load/load-monitor.service.js';
import { QuotaMetrics } from '../quota.metrics.js';
import { InjectRateLimitSettings } from '../rate-limit.settings.js';
import type { RateLimitSettings } from '../rate-limit.types.js';
import { SubjectResolver } from '../subjects/subject-resolver.js';
import { SuspectAddresses } from './suspect-addresses.js';

/**
 * Shed first (docs/quotas.md#shed-first): while this instance's own health (event-loop delay, admitted p99)
 * is at soft or hard (or was, within `load.hold`), the front door refuses 503 `load_shed` the classes `load.shedFirst` names
 * — requests from a suspect address (one this instance answered 401 lately), then requests without a
 * signature — before their body is read, so an instance saturated by a flood spends what it has left on
 * its verified clients. A level raised by bucket fill (shared by every instance) or pinned changes nothing
 * here; critical policies and those with `criticalWhen` (decided only once the request is known) are exempt.
 */
@Injectable()
export class ShedFirst {
  private readonly suspects = new SuspectAddresses();

  constructor(
    private readonly load: LoadMonitor,
    private readonly subjects: SubjectResolver,
    private readonly m: QuotaMetrics,
    @InjectRateLimitSettings() private readonly settings: RateLimitSettings,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** The classes shed first (empty: nothing to do, not even to remember suspects). */
  get classes(): readonly ShedClass[] {
    return this.settings.load.shedFirst;
  }

  /** A finished response (a response tap): a 401 outside the admin API makes its address suspect. */
  readonly observe = (r: TappedResponse): void => {
    if (r.status !== 401 || !this.classes.includes('suspect')) return;
    const req = r.req as AnyRequest;
    const state = requestState(req);
    if (state.policy === 'admin' || state.benignRefusal || state.problem?.startsWith('admin_'))
      return;
    const s = this.subjects.resolve('ip', { req, state, route: state.route ?? '' }, undefined);
    if (s) this.suspects.mark(s.value, this.clock.now());
  };

  /** Whether some class is shed now (the front door has nothing to shed otherwise). */
  shedding(): boolean {
    return this.classes.length > 0 && this.hot();
  }

  /** The 503 for a request of a class shed now, or undefined. */
  refusal(
    ctx: SubjectContext,
    slice: RateLimitSlice,
    signed: boolean,
    policyName: string,
  ): ProblemException | undefined {
    const classes = this.classes;
    if (classes.length === 0 || slice.criticalWhen !== undefined || !this.hot()) return undefined;
    const cls = this.classOf(ctx, classes, signed);
    if (cls === undefined) return undefined;
    this.m.shedFirst.inc({ policy: policyName, class: cls });
    const retryAfter = this.settings.load.retryAfterS;
    return ProblemException.fast(503, 'load_shed', 'Service under load', {
      detail:
        'This instance is overloaded: it sheds requests without a signature and from addresses that failed one first; retry later.',
      headers: { 'Retry-After': String(retryAfter) },
      retry_after: retryAfter,
    });
  }

  /**
   * This instance's own health (event-loop delay, admitted p99, as the load monitor reads it every poll) was at
   * soft or above in some reading within `load.hold`. A pinned level is final: nothing is shed here.
   */
  private hot(): boolean {
    return this.settings.load.pin === undefined && this.load.ownHealthHot();
  }

  private classOf(
    ctx: SubjectContext,
    classes: readonly ShedClass[],
    signed: boolean,
  ): ShedClass | undefined {
    if (classes.includes('suspect') && this.suspects.size > 0) {
      const s = this.subjects.resolve('ip', ctx, undefined);
      if (s && this.suspects.has(s.value, this.clock.now())) return 'suspect';
    }
    return !signed && classes.includes('anonymous') ? 'anonymous' : undefined;
  }
}
