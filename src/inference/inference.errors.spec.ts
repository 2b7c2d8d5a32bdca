import { BadRequestException, HttpException } from '@nestjs/common';
import { describe, expect, it } from 'vitest';
import { ProblemException } from '../common/problem.exception.js';
import {
  abortedCall,
  clientClosed,
  isBackendFailure,
  upstreamFailed,
  upstreamRejected,
  upstreamTimeout,
} from './inference.errors.js';

describe(isBackendFailure.name, () => {
  it.each([
    ['upstream 5xx / unreachable', upstreamFailed('boom', 500), true],
    ['a timeout', upstreamTimeout('slow'), true],
    ['an unexpected error', new TypeError('bug'), true],
    ['a 500 HttpException', new HttpException('x', 500), true],
    ['an upstream 4xx', upstreamRejected(400, 'bad'), false],
    ['an upstream 429', upstreamRejected(429, 'slow down'), false],
    ['a client that went away', clientClosed(), false],
    ['a validation error', new BadRequestException(['model must be a string']), false],
    [
      'a 4xx problem from another lock',
      new ProblemException(429, 'rate_limited', 'Too many requests'),
      false,
    ],
  ])('should classify %s as failure=%s', (_what, err, failure) => {
    expect(isBackendFailure(err)).toBe(failure);
  });
});

describe(abortedCall.name, () => {
  it('should call it client_closed when the client went away, else a 504 timeout', () => {
    const gone = new AbortController();
    expect(abortedCall(gone.signal, 'x').problem).toMatchObject({
      status: 504,
      error: 'upstream_timeout',
      detail: 'x',
    });
    gone.abort();
    expect(abortedCall(gone.signal, 'x').kind).toBe('client_closed');
  });
});
