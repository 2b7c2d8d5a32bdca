import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { createHash, timingSafeEqual } from 'node:crypto';
import { ProblemException } from '../common/problem.exception.js';

/** Injection token of the bearer token `/metrics` asks for (undefined = open). */
export const METRICS_TOKEN = Symbol('METRICS_TOKEN');

const digest = (s: string): Buffer => createHash('sha256').update(s).digest();

/**
 * With METRICS_TOKEN set, `/metrics` answers only `Authorization: Bearer
 * <token>` (compared in constant time); anything else is a 401 that says
 * nothing about the metrics.
 */
@Injectable()
export class MetricsTokenGuard implements CanActivate {
  private readonly expected: Buffer | undefined;

  constructor(@Inject(METRICS_TOKEN) token: string | undefined) {
    this.expected = token === undefined ? undefined : digest(token);
  }

  canActivate(ctx: ExecutionContext): boolean {
    if (!this.expected) return true;
    const req = ctx.switchToHttp().getRequest<{ headers: Record<string, unknown> }>();
    const auth = req.headers.authorization;
    const m = typeof auth === 'string' ? /^Bearer +(\S+) *$/i.exec(auth) : null;
    if (m && timingSafeEqual(digest(m[1]!), this.expected)) return true;
    throw ProblemException.fast(401, 'metrics_unauthorized', 'Metrics need a bearer token', {
      headers: { 'WWW-Authenticate': 'Bearer realm="rampart-metrics"' },
    });
  }
}
