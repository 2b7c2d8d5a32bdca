import { BadRequestException } from '@nestjs/common';
import { describe, expect, it } from 'vitest';
import { ProblemException } from '../../../common/problem.exception.js';
import { BreakerTimeoutError, classifyError } from './call-outcome.js';

describe(classifyError.name, () => {
  it('should count 5xx, timeouts and unexpected errors against the backend, and nothing else', () => {
    expect(classifyError(new ProblemException(502, 'upstream_error', 'x'))).toBe('failure');
    expect(classifyError(new ProblemException(503, 'search_unavailable', 'x'))).toBe('failure');
    expect(classifyError(new TypeError('boom'))).toBe('failure');
    expect(classifyError(new BreakerTimeoutError(5))).toBe('timeout');
    expect(classifyError(new ProblemException(429, 'upstream_rejected', 'x'))).toBe('client_error');
    expect(classifyError(new BadRequestException(['q must be a string']))).toBe('client_error');
    expect(classifyError(new ProblemException(404, 'item_not_found', 'x'))).toBe('client_error');
    expect(classifyError(new ProblemException(499, 'client_closed', 'x'))).toBe('client_gone');
  });
});
