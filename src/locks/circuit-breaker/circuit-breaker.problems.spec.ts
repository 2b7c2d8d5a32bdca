import { HttpException } from '@nestjs/common';
import { describe, expect, it } from 'vitest';
import { ProblemException } from '../../common/problem.exception.js';
import { BreakerTimeoutError } from './breaker/call-outcome.js';
import {
  callProblem,
  failureProblem,
  refusalProblem,
  retryAfterSeconds,
  timeoutProblem,
} from './circuit-breaker.problems.js';

describe(refusalProblem.name, () => {
  it('should answer 503 circuit_open naming the backend, with Retry-After rounded up', () => {
    const p = refusalProblem('search', 'open', 7_001);
    expect(p.getStatus()).toBe(503);
    expect(p.problem).toMatchObject({
      error: 'circuit_open',
      backend: 'search',
      state: 'open',
      retry_after: 8,
    });
    expect(p.headers).toEqual({ 'Retry-After': '8', 'Rampart-Breaker': 'open' });
    expect(refusalProblem('search', 'busy', 10).problem).toMatchObject({
      error: 'backend_busy',
      retry_after: 1,
    });
  });

  it('should never advise less than one second', () => {
    expect(retryAfterSeconds(0)).toBe(1);
    expect(retryAfterSeconds(-50)).toBe(1);
    expect(retryAfterSeconds(1_000)).toBe(1);
    expect(retryAfterSeconds(1_001)).toBe(2);
  });
});

describe(failureProblem.name, () => {
  it('should pass 502 and 504 errors on as they are', () => {
    const e502 = new ProblemException(502, 'upstream_error', 'x');
    const e504 = new ProblemException(504, 'upstream_timeout', 'x');
    expect(failureProblem('inference', e502)).toBe(e502);
    expect(failureProblem('inference', e504)).toBe(e504);
  });

  it('should turn other failures into 502 backend_error keeping the cause, so that 503 only ever means refused', () => {
    expect(
      (
        failureProblem(
          'search',
          new ProblemException(503, 'search_unavailable', 'x'),
        ) as ProblemException
      ).problem,
    ).toMatchObject({
      status: 502,
      error: 'backend_error',
      backend: 'search',
      cause: 'search_unavailable',
    });
    expect(
      (failureProblem('search', new HttpException('x', 500)) as ProblemException).problem,
    ).toMatchObject({ cause: 'http_500' });
    expect(
      (failureProblem('search', new Error('secret detail')) as ProblemException).problem,
    ).toMatchObject({ cause: 'unexpected_error' });
    expect(
      JSON.stringify(
        (failureProblem('search', new Error('secret detail')) as ProblemException).problem,
      ),
    ).not.toContain('secret');
  });

  it('should answer a timeout with 504 backend_timeout', () => {
    expect(timeoutProblem('search', 250).problem).toMatchObject({
      status: 504,
      error: 'backend_timeout',
      backend: 'search',
    });
  });
});

describe(callProblem.name, () => {
  it("should answer the breaker's timeout with 504, and opossum's refusals with 503", () => {
    expect(callProblem(new BreakerTimeoutError(250), 'search', 9_000)).toMatchObject({
      problem: { status: 504, error: 'backend_timeout', backend: 'search' },
    });
    const open = Object.assign(new Error('Breaker is open'), { code: 'EOPENBREAKER' });
    expect(callProblem(open, 'search', 9_000)).toMatchObject({
      problem: { status: 503, error: 'circuit_open', state: 'open', retry_after: 9 },
    });
    const shutdown = Object.assign(new Error('The circuit has been shutdown.'), {
      code: 'ESHUTDOWN',
    });
    expect(callProblem(shutdown, 'search', 9_000)).toMatchObject({
      problem: { status: 503, error: 'backend_busy', retry_after: 1 },
    });
  });

  it('should turn backend failures into 502 and pass client errors on as they are', () => {
    expect(
      callProblem(new ProblemException(503, 'search_unavailable', 'x'), 'search', 1),
    ).toMatchObject({
      problem: { status: 502, error: 'backend_error', cause: 'search_unavailable' },
    });
    const notFound = new ProblemException(404, 'item_not_found', 'x');
    expect(callProblem(notFound, 'search', 1)).toBe(notFound);
    const gone = new ProblemException(499, 'client_closed', 'x');
    expect(callProblem(gone, 'search', 1)).toBe(gone);
  });
});
