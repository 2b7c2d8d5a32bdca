import type { ProblemBody } from '../common/problem.exception.js';
import type { ProblemStyle } from '../common/problem-styles.js';

/** The paths the official OpenAI SDKs call (`baseURL: <rampart>/v1`); their problems use {@link OPENAI_PROBLEM_STYLE}. */
export const OPENAI_PATHS: readonly string[] = ['/v1/chat/completions', '/v1/models'];

/** OpenAI's error object, as its SDKs read it (`APIError.code/type/param`, message). */
export interface OpenAIErrorObject {
  message: string;
  /** Category by status: invalid_request_error, authentication_error, permission_error, rate_limit_error, server_error. */
  type: string;
  /** Rampart's stable code (`rate_limited`, `bad_signature`, `validation_failed`, …). */
  code: string;
  /** The request field at fault (validation errors), else null. */
  param: string | null;
}

/** OpenAI's error category for an HTTP status. */
export function openAiErrorType(status: number): string {
  if (status === 401) return 'authentication_error';
  if (status === 403) return 'permission_error';
  if (status === 429) return 'rate_limit_error';
  if (status >= 500) return 'server_error';
  return 'invalid_request_error';
}

/**
 * The request field the first validation problem names, in class-validator's
 * "<path> must …" form ("max_tokens must not be greater than 8192" → `max_tokens`,
 * "messages.0.role must be …" → `messages.0.role`); null when it names none.
 */
function paramOf(problem: ProblemBody): string | null {
  const first = Array.isArray(problem.problems) ? problem.problems[0] : undefined;
  const m = typeof first === 'string' ? /^([A-Za-z_][\w.]*) must /.exec(first) : null;
  return m ? m[1]! : null;
}

/** A problem as OpenAI's error object: message = detail (or title), code = Rampart's code. */
export function openAiError(problem: ProblemBody): OpenAIErrorObject {
  return {
    message: problem.detail ?? problem.title,
    type: openAiErrorType(problem.status),
    code: problem.error,
    param: problem.error === 'validation_failed' ? paramOf(problem) : null,
  };
}

/**
 * The problem body on the OpenAI-compatible routes: every problem+json member
 * (`type`, `title`, `status`, `detail`, `request_id`, extensions) except that
 * `error` is OpenAI's error object — the official SDKs build their
 * `APIError` (RateLimitError, AuthenticationError, …) from it — and the stable
 * code, which `error` carries as a string elsewhere, moves to `code` (and is
 * `error.code` as well as the end of `type`).
 */
export const OPENAI_PROBLEM_STYLE: ProblemStyle = {
  name: 'openai',
  body: (problem) => ({ ...problem, code: problem.error, error: openAiError(problem) }),
};
