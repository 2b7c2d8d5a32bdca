import { describe, expect, it } from 'vitest';
import type { ProblemBody } from '../common/problem.exception.js';
import { OPENAI_PROBLEM_STYLE, openAiError, openAiErrorType } from './openai-problem-style.js';

const problem = (over: Partial<ProblemBody> = {}): ProblemBody => ({
  type: 'https://rampart.dev/problems/rate_limited',
  title: 'Too many requests',
  status: 429,
  error: 'rate_limited',
  ...over,
});

describe(openAiErrorType.name, () => {
  it.each([
    [400, 'invalid_request_error'],
    [404, 'invalid_request_error'],
    [413, 'invalid_request_error'],
    [415, 'invalid_request_error'],
    [401, 'authentication_error'],
    [403, 'permission_error'],
    [429, 'rate_limit_error'],
    [500, 'server_error'],
    [502, 'server_error'],
    [503, 'server_error'],
    [504, 'server_error'],
  ])('should call status %i %s', (status, type) => {
    expect(openAiErrorType(status)).toBe(type);
  });
});

describe(openAiError.name, () => {
  it('should carry the detail as message and Rampart’s code', () => {
    expect(openAiError(problem({ detail: 'retry in 2 s' }))).toEqual({
      message: 'retry in 2 s',
      type: 'rate_limit_error',
      code: 'rate_limited',
      param: null,
    });
  });

  it('should fall back to the title when there is no detail', () => {
    expect(openAiError(problem()).message).toBe('Too many requests');
  });

  it.each([
    [['max_tokens must not be greater than 8192'], 'max_tokens'],
    [['messages.0.role must be one of the following values: user'], 'messages.0.role'],
    [['messages must contain at least one message with role "user"'], 'messages'],
    [['each value in stop must be a string'], null],
    [[], null],
    [undefined, null],
  ])('should name the field of validation problems %j as param %s', (problems, param) => {
    const p = problem({ status: 400, error: 'validation_failed', problems });
    expect(openAiError(p).param).toBe(param);
  });

  it('should leave param null for other problems even with a problems list', () => {
    expect(openAiError(problem({ problems: ['x is wrong'] })).param).toBeNull();
  });
});

describe('OPENAI_PROBLEM_STYLE', () => {
  it('should keep every problem+json member, move the code to `code` and put OpenAI’s object in `error`', () => {
    const p = problem({ detail: 'slow down', request_id: 'r-1', retry_after: 2 });
    expect(OPENAI_PROBLEM_STYLE.body(p)).toEqual({
      type: 'https://rampart.dev/problems/rate_limited',
      title: 'Too many requests',
      status: 429,
      detail: 'slow down',
      request_id: 'r-1',
      retry_after: 2,
      code: 'rate_limited',
      error: { message: 'slow down', type: 'rate_limit_error', code: 'rate_limited', param: null },
    });
    expect(p.error).toBe('rate_limited'); // the problem itself is not changed
  });
});
