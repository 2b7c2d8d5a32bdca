import type { ServerResponse } from 'node:http';
import type { AnyReply } from './http-context.js';
import type { ProblemBody } from '../common/problem.exception.js';
import type { ProblemStyle } from '../common/problem-styles.js';

/**
 * Writes a problem+json answer on either adapter (or on a raw Node response);
 * with a `style` (the route's, see ProblemStyles), its body instead of the plain problem.
 */
export function sendProblem(
  reply: AnyReply,
  problem: ProblemBody,
  headers: Record<string, string> = {},
  style?: ProblemStyle,
): void {
  const body = JSON.stringify(style ? style.body(problem) : problem);
  const fastify = reply as unknown as {
    code?: (n: number) => unknown;
    header: (n: string, v: string) => unknown;
    send: (b: string) => unknown;
    sent?: boolean;
  };
  if (typeof fastify.code === 'function' && typeof fastify.send === 'function') {
    if (fastify.sent) return;
    fastify.code(problem.status);
    for (const [k, v] of Object.entries(headers)) fastify.header(k, v);
    fastify.header('content-type', 'application/problem+json; charset=utf-8');
    fastify.send(body);
    return;
  }
  const res = reply as unknown as ServerResponse;
  if (res.headersSent) {
    res.destroy();
    return;
  }
  res.statusCode = problem.status;
  for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
  res.setHeader('content-type', 'application/problem+json; charset=utf-8');
  res.setHeader('content-length', Buffer.byteLength(body));
  res.end(body);
}
