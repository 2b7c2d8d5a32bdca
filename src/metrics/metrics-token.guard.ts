import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { createHash, timingSafeEqual } from 'node:crypto';
import { ProblemException } from '../common/problem.exception.js';

/** Injection token of the bearer token `/metrics` asks for (undefined = open). */
export const METRICS_TOKEN = Symbol('METRICS_TOKEN');

const digest = (s: string): Buffer => createHash('sha256').update(s).digest();

/**
 * Whether an `Authorization` value is `Bearer <token>` (compared in constant
 * time); always false without a token. Also read by `/health/ready` for its detail.
 */
export function bearerMatcher(token: string | undefined): (authorization: unknown) => boolean {
  if (token === undefined) return () => false;
  const expected = digest(token);
  return (auth) => {
    const m = typeof auth === 'string' ? /^Bearer +(\S+) *$/i.exec(auth) : null;
    return m !== null && timingSafeEqual(digest(m[1]!), expected);
  };
}

/**
 * With METRICS_TOKEN set, `/metrics` answers only `Authorization: Bearer
 * <token>` (compared in constant time); anything else is a 401 that says
 * nothing about the metrics.
 */
@Injectable()
export class MetricsTokenGuard implements CanActivate {
  private readonly open: boolean;
  private readonly matches: (authorization: unknown) => boolean;

  constructor(@Inject(METRICS_TOKEN) token: string | undefined) {
    this.open = token === undefined;
    this.matches = bearerMatcher(token);
  }

  canActivate(ctx: ExecutionContext): boolean {
    if (this.open) return true;
    const req = ctx.switchToHttp().getRequest<{ headers: Record<string, unknown> }>();
    if (this.matches(req.headers.authorization)) return true;
    throw ProblemException.fast(401, 'metrics_unauthorized', 'Metrics need a bearer token', {
      headers: { 'WWW-Authenticate': 'Bearer realm="rampart-metrics"' },
    });
  }
}
