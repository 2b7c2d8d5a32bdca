import type { IncomingMessage } from 'node:http';
import type { ProblemException } from '../common/problem.exception.js';
import type { ProblemStyles } from '../common/problem-styles.js';
import { AnyReply, AnyRequest, requestState } from './http-context.js';
import { sendProblem } from './send-problem.js';

/**
 * Answers the front door's refusal (common/front-door.ts) on either adapter, before anything else ran: the
 * problem with its request id, in the path's style, as the problem filter would have written it.
 */
export function answerRefusal(
  req: IncomingMessage,
  reply: AnyReply,
  refusal: ProblemException,
  styles: ProblemStyles,
): void {
  const state = requestState(req as unknown as AnyRequest);
  const problem = refusal.problem;
  state.problem = problem.error;
  if (state.requestId) problem.request_id = state.requestId;
  // The one security header that matters for a JSON answer (express sets the others, security-headers.ts, later).
  const headers = { ...refusal.headers, 'x-content-type-options': 'nosniff' };
  sendProblem(reply, problem, headers, styles.forTarget(req.url));
}
