import type { AnyReply, AnyRequest } from '../../http/http-context.js';
import type { QueuePlace } from './breaker/fair-queue.js';

/**
 * What a product may do while one of its calls waits for a backend slot (docs/circuit-breaker.md#bounded-wait):
 * the lock declares it (token BREAKER_WAIT_NOTICE) and knows no product; a product that can show its client life
 * before the answer (inference: an SSE comment on a streaming request) provides it. Optional: without one the
 * client just waits.
 */
export interface WaitNotice {
  /**
   * The call was queued at `place`; called at once, within the wait. May start the answer (e.g. send SSE headers
   * and a comment); must never throw.
   */
  queued(req: AnyRequest, reply: AnyReply, place: QueuePlace): void;
  /**
   * A call queued() started an answer for was refused after all, or failed before the product's answer began:
   * end the answer with `err` (a ProblemException or another HttpException) the product's way (e.g. an SSE error
   * event) and resolve true; false when queued() started nothing (the lock throws it as usual).
   */
  unanswered(req: AnyRequest, reply: AnyReply, err: unknown): Promise<boolean>;
}

/** Injection token of the product's WaitNotice (at most one in the app). */
export const BREAKER_WAIT_NOTICE = Symbol('BREAKER_WAIT_NOTICE');

/** The product's WaitNotice wherever it is provided, or undefined when none is. */
export function findWaitNotice(moduleRef: {
  get<T>(token: symbol, opts: { strict: false }): T;
}): WaitNotice | undefined {
  try {
    return moduleRef.get<WaitNotice>(BREAKER_WAIT_NOTICE, { strict: false });
  } catch {
    return undefined;
  }
}
