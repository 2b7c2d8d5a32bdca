import { Injectable, Module, OnApplicationBootstrap } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { ResponseTaps, type TappedResponse } from './common/response-taps.js';
import { type AnyRequest, requestState } from './http/http-context.js';
import { findRiskSink } from './locks/rate-limit/extensions/risk-sink.js';
import type { RiskSignal } from './locks/rate-limit/core/risk.types.js';

/**
 * Which finished answers are risk signals (docs/quotas.md#signals): a failed
 * signature (any 401 of lock 1), a body that failed validation, a 404, and the
 * cache shield's "definitely absent" answer (a junk key). Unverified requests
 * can only raise their own address's score (the sink scores only the
 * subjects a request proves: verified app and user, and the client address).
 */
export function signalOf(
  status: number,
  problem: string | undefined,
  shield: string | undefined,
  benign = false,
): RiskSignal | undefined {
  if (benign) return undefined;
  if (status === 401 && problem !== undefined && !problem.startsWith('admin_'))
    return 'bad_signature';
  if (status === 400 && problem === 'validation_failed') return 'validation_failed';
  if (status === 404) return 'not_found';
  if (shield === 'bloom-absent') return 'bloom_absent';
  return undefined;
}

/**
 * The producers of risk signals wired at the app level, so no lock imports
 * another: a response tap (common/response-taps.ts) turns failed and junk
 * answers into signals for the rate-limit lock's RiskSink (when installed).
 * A refusal its lock marked benign (a session key expired within its app's
 * `refreshGrace`: the browser's normal refresh) is no signal.
 */
@Injectable()
export class RiskSignalWiring implements OnApplicationBootstrap {
  constructor(
    private readonly moduleRef: ModuleRef,
    private readonly taps: ResponseTaps,
  ) {}

  onApplicationBootstrap(): void {
    const sink = findRiskSink(this.moduleRef);
    if (!sink) return; // the rate-limit lock is not installed, or scores are off
    this.taps.add((r: TappedResponse) => {
      const req = r.req as AnyRequest;
      const state = requestState(req);
      // The admin API is critical and has its own guard: its answers are not scored.
      if (state.policy === 'admin') return;
      const signal = signalOf(r.status, state.problem, state.shieldAnswer, state.benignRefusal);
      if (signal) sink.signal({ req, state, route: state.route ?? '' }, signal);
    });
  }
}

@Module({ providers: [RiskSignalWiring] })
export class RiskSignalsModule {}
