import { ArgumentsHost, Catch, ExceptionFilter, Logger } from '@nestjs/common';
import { PROBLEM_TYPE_BASE, ProblemBody } from '../common/problem.exception.js';
import { sendProblem } from '../http/send-problem.js';
import { AnyReply, AnyRequest, requestState } from '../http/http-context.js';
import { AppRegistryError } from '../locks/signature/apps/app-registry.js';
import { RedisScriptError, RedisUnavailableError } from '../redis/redis.errors.js';

/**
 * Admin-specific failures as problem+json: the shared store unreachable →
 * 503 `admin_store_unavailable` (nothing changed); an app definition the
 * registry refuses → 400 naming every problem.
 */
@Catch(RedisUnavailableError, RedisScriptError, AppRegistryError)
export class AdminErrorFilter implements ExceptionFilter {
  private readonly logger = new Logger('Admin');

  catch(
    err: RedisUnavailableError | RedisScriptError | AppRegistryError,
    host: ArgumentsHost,
  ): void {
    const http = host.switchToHttp();
    const req = http.getRequest<AnyRequest>();
    let problem: ProblemBody;
    if (err instanceof AppRegistryError) {
      problem = {
        type: PROBLEM_TYPE_BASE + 'invalid_app',
        title: 'App change rejected',
        status: 400,
        error: 'invalid_app',
        problems: [...err.problems],
        detail: err.problems.join('; '),
      };
    } else {
      this.logger.warn(`admin store failure: ${err.message}`);
      problem = {
        type: PROBLEM_TYPE_BASE + 'admin_store_unavailable',
        title: 'Admin store unavailable',
        status: 503,
        error: 'admin_store_unavailable',
        detail:
          'The shared configuration store (Redis) did not answer; nothing was changed. Try again.',
      };
    }
    const id = requestState(req).requestId;
    if (id) problem.request_id = id;
    sendProblem(
      http.getResponse<AnyReply>(),
      problem,
      problem.status === 503 ? { 'Retry-After': '1' } : {},
    );
  }
}
