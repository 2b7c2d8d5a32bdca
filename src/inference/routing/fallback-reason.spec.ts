import { describe, expect, it } from 'vitest';
import {
  clientClosed,
  upstreamFailed,
  upstreamRejected,
  upstreamTimeout,
} from '../inference.errors.js';
import { fallbackReason, refusedByOpossum } from './fallback-reason.js';

describe(fallbackReason.name, () => {
  it('should fall over on 5xx, timeouts and 429', () => {
    expect(fallbackReason(upstreamFailed('x', 503))).toBe('failed');
    expect(fallbackReason(upstreamTimeout('x'))).toBe('timeout');
    expect(fallbackReason(upstreamRejected(429, 'x'))).toBe('rate_limited');
  });

  it("should not fall over on the request's own 4xx nor on a caller gone", () => {
    for (const status of [400, 404, 413, 422])
      expect(fallbackReason(upstreamRejected(status, 'x'))).toBe(undefined);
    expect(fallbackReason(clientClosed())).toBe(undefined);
  });
});

describe(refusedByOpossum.name, () => {
  it("should know opossum's refusals from other errors", () => {
    expect(refusedByOpossum(Object.assign(new Error('open'), { code: 'EOPENBREAKER' }))).toBe(true);
    expect(refusedByOpossum(new Error('x'))).toBe(false);
    expect(refusedByOpossum(null)).toBe(false);
  });
});
