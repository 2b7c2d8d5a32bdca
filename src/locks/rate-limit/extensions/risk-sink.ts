import type { SubjectContext } from './rate-limit-extensions.js';
import type { RiskSignal } from '../core/risk.types.js';

/**
 * What products and the app feed the risk scores with: the rate-limit lock
 * declares it (token RISK_SINK), the producers are wired where they live
 * (app.risk-signals.ts for answers, products for payloads and chats), so no
 * lock imports another. Every call is fire-and-forget: observations are
 * batched and written off the request's path; none ever throws.
 */
export interface RiskSink {
  /** Whether scores are kept at all (`rateLimit.risk.enabled`). */
  readonly enabled: boolean;
  /**
   * Signals against the request's scored subjects that the request proves: the verified app and
   * user, and always the client address (an unverified request can only hurt its own address).
   */
  signal(ctx: SubjectContext, signal: RiskSignal, count?: number): void;
  /** A payload (e.g. prompt text) of the request's subjects: the same one again within the window is a signal. */
  payload(ctx: SubjectContext, text: string): void;
  /** A chat the request's `user` subject wrote in: too many distinct chats within the window is a signal. */
  chat(ctx: SubjectContext, chatId: string): void;
}

/** Injection token of the rate-limit lock's RiskSink (optional for producers: inject with @Optional()). */
export const RISK_SINK = Symbol('RISK_SINK');

/** The lock's RiskSink wherever it is provided, or undefined when the lock is not installed or scores are off. */
export function findRiskSink(moduleRef: {
  get<T>(token: symbol, opts: { strict: false }): T;
}): RiskSink | undefined {
  try {
    const sink = moduleRef.get<RiskSink>(RISK_SINK, { strict: false });
    return sink.enabled ? sink : undefined;
  } catch {
    return undefined;
  }
}
