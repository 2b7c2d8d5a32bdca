import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import { PROBLEM_TYPE_BASE, ProblemBody, ProblemException } from '../common/problem.exception.js';
import type { ProblemCode } from '../common/problem-codes.js';
import { ProblemStyles } from '../common/problem-styles.js';
import { AnyReply, AnyRequest, rawUrl, requestState } from './http-context.js';
import { sendProblem } from './send-problem.js';

const CODE_BY_STATUS: Record<number, [ProblemCode, string]> = {
  400: ['bad_request', 'Bad request'],
  401: ['unauthorized', 'Unauthorized'],
  403: ['forbidden', 'Forbidden'],
  404: ['not_found', 'Not found'],
  405: ['method_not_allowed', 'Method not allowed'],
  406: ['not_acceptable', 'Not acceptable'],
  408: ['request_timeout', 'Request timeout'],
  413: ['body_too_large', 'Request body too large'],
  415: ['unsupported_media_type', 'Unsupported media type'],
  422: ['unprocessable', 'Unprocessable request'],
  429: ['rate_limited', 'Too many requests'],
  500: ['internal_error', 'Internal server error'],
  502: ['bad_gateway', 'Upstream failed'],
  503: ['unavailable', 'Service unavailable'],
  504: ['gateway_timeout', 'Upstream timed out'],
};

/** Maps any thrown value to a problem+json body; unknown errors become a 500 without details. */
export function toProblem(err: unknown): { problem: ProblemBody; headers: Record<string, string> } {
  if (err instanceof ProblemException) return { problem: err.problem, headers: { ...err.headers } };
  if (err instanceof HttpException) {
    const status = err.getStatus();
    const [error, title] = CODE_BY_STATUS[status] ?? [
      status >= 500 ? 'internal_error' : 'bad_request',
      'Error',
    ];
    const res = err.getResponse();
    const problem: ProblemBody = { type: PROBLEM_TYPE_BASE + error, title, status, error };
    if (typeof res === 'object' && res !== null) {
      const msg = (res as { message?: unknown }).message;
      if (Array.isArray(msg)) {
        problem.error = status === 400 ? 'validation_failed' : error;
        problem.type = PROBLEM_TYPE_BASE + problem.error;
        problem.title = status === 400 ? 'Request failed validation' : title;
        problem.problems = msg.map(String);
        problem.detail = msg.map(String).join('; ');
      } else if (typeof msg === 'string' && status < 500) {
        problem.detail = msg;
      }
    } else if (typeof res === 'string' && status < 500) {
      problem.detail = res;
    }
    // The router's 404 ("Cannot POST /telegram/<bot>/<path secret>/") would echo the path, which
    // may carry a secret: never echoed.
    if (status === 404) problem.detail = 'no route matches this method and path';
    return { problem, headers: {} };
  }
  // Errors thrown by body parsers (express: `type`/`status`, fastify: `code`/`statusCode`).
  const e = err as
    { status?: number; statusCode?: number; type?: string; code?: string } | undefined;
  const status = e?.statusCode ?? e?.status;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    if (status === 413) {
      return {
        problem: {
          type: PROBLEM_TYPE_BASE + 'body_too_large',
          title: 'Request body too large',
          status,
          error: 'body_too_large',
        },
        headers: {},
      };
    }
    if (status === 415) {
      return {
        problem: {
          type: PROBLEM_TYPE_BASE + 'unsupported_media_type',
          title: 'Unsupported media type',
          status,
          error: 'unsupported_media_type',
        },
        headers: {},
      };
    }
    return {
      problem: {
        type: PROBLEM_TYPE_BASE + 'malformed_body',
        title: 'Request body could not be parsed',
        status: 400,
        error: 'malformed_body',
      },
      headers: {},
    };
  }
  return {
    problem: {
      type: PROBLEM_TYPE_BASE + 'internal_error',
      title: 'Internal server error',
      status: 500,
      error: 'internal_error',
    },
    headers: {},
  };
}

/**
 * Global filter: every error leaves as application/problem+json with a stable
 * `error` code, in the style a product registered for the request's path, if any.
 */
@Catch()
export class ProblemFilter implements ExceptionFilter {
  private readonly logger = new Logger('Errors');

  constructor(private readonly styles: ProblemStyles) {}

  catch(err: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const req = http.getRequest<AnyRequest>();
    const reply = http.getResponse<AnyReply>();
    const { problem, headers } = toProblem(err);
    const state = requestState(req);
    state.problem = problem.error;
    const requestId = state.requestId;
    if (requestId) problem.request_id = requestId;
    if (problem.status >= 500 && !(err instanceof HttpException)) {
      this.logger.error({
        msg: 'unhandled error',
        requestId,
        err:
          err instanceof Error
            ? { name: err.name, message: err.message, stack: err.stack }
            : String(err),
      });
    }
    sendProblem(reply, problem, headers, this.styles.forTarget(rawUrl(req)));
  }
}
