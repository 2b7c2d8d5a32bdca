import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { ProblemException } from '../../common/problem.exception.js';
import { AnyRequest, header, headerCount } from '../../http/http-context.js';
import { AdminMetrics } from '../admin-metrics.js';
import { setActor } from './admin-actor.js';
import { AdminTokens } from './admin-tokens.js';

const CHALLENGE = { 'WWW-Authenticate': 'Bearer realm="rampart-admin"' };

/**
 * Bearer-token check of every admin route. Runs after the chain guard, so the
 * rate-limit lock (policy `admin`) throttles token guessing before a token is
 * even hashed. With no admin credential configured every admin route answers
 * 503 `admin_not_configured`: the admin API is never open.
 */
@Injectable()
export class AdminAuthGuard implements CanActivate {
  constructor(
    private readonly tokens: AdminTokens,
    private readonly metrics: AdminMetrics,
  ) {}

  canActivate(ctx: ExecutionContext): boolean {
    if (!this.tokens.configured) {
      throw ProblemException.fast(503, 'admin_not_configured', 'Admin API is disabled', {
        detail: 'No admin credential is configured: set ADMIN_TOKEN or ADMIN_TOKENS_FILE',
      });
    }
    const req = ctx.switchToHttp().getRequest<AnyRequest>();
    if (headerCount(req, 'authorization') > 1) {
      this.metrics.authFailures.inc();
      throw ProblemException.fast(401, 'malformed_header', 'Authorization header sent twice', {
        detail: 'send exactly one Authorization header',
        headers: CHALLENGE,
      });
    }
    const tokenId = this.tokens.verify(header(req, 'authorization'));
    if (tokenId === undefined) {
      this.metrics.authFailures.inc();
      throw ProblemException.fast(
        401,
        'admin_unauthorized',
        'Admin credentials missing or invalid',
        { headers: CHALLENGE },
      );
    }
    setActor(req, tokenId);
    return true;
  }
}
