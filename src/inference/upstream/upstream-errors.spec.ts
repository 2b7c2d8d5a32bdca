import { describe, expect, it } from 'vitest';
import type { InferenceCall } from '../inference-backend.js';
import { Deadline } from './deadline.js';
import { statusError, transportError } from './upstream-errors.js';

const KEY = 'sk-live-abcdef0123456789';

function call(): InferenceCall & { gone: AbortController; breaker: AbortController } {
  const gone = new AbortController();
  const breaker = new AbortController();
  return {
    gone,
    breaker,
    clientGone: gone.signal,
    signal: AbortSignal.any([gone.signal, breaker.signal]),
  };
}

describe(statusError.name, () => {
  it('should pass a 4xx on as the same status with the upstream message', () => {
    const e = statusError(
      400,
      {},
      JSON.stringify({
        error: { message: 'max_tokens is too large', type: 'invalid_request_error' },
      }),
    );
    expect(e.kind).toBe('rejected');
    expect(e.problem).toMatchObject({
      status: 400,
      error: 'upstream_rejected',
      detail: 'max_tokens is too large',
      upstream_status: 400,
    });
  });

  it('should keep a sane Retry-After of a 429 and drop a strange one', () => {
    expect(statusError(429, { 'retry-after': '20' }, '').headers).toEqual({ 'retry-after': '20' });
    expect(statusError(429, { 'retry-after': 'x\r\nset-cookie: a=b' }, '').headers).toEqual({});
  });

  it('should never pass on what the upstream says about credentials', () => {
    const e = statusError(
      401,
      {},
      JSON.stringify({ error: { message: `Incorrect API key provided: ${KEY}` } }),
      KEY,
    );
    expect(e.problem.status).toBe(401);
    expect(JSON.stringify(e.problem)).not.toContain('Incorrect API key');
  });

  it('should blank out the key and key-like strings in a forwarded message', () => {
    const e = statusError(
      400,
      {},
      JSON.stringify({ error: { message: `bad request for ${KEY} (also sk-abc***xyz)` } }),
      KEY,
    );
    expect(e.problem.detail).toBe('bad request for *** (also ***)');
  });

  it('should fall back to the status when the error body is not JSON', () => {
    expect(statusError(404, {}, '<html>nope</html>').problem.detail).toBe(
      'the upstream answered 404',
    );
  });

  it.each([500, 502, 503, 302])('should map %i to 502 upstream_error', (status) => {
    const e = statusError(status, {}, 'whatever');
    expect(e.kind).toBe('failed');
    expect(e.problem).toMatchObject({
      status: 502,
      error: 'upstream_error',
      upstream_status: status,
    });
  });
});

describe(transportError.name, () => {
  it('should call it a timeout when our deadline fired', async () => {
    const d = new Deadline(1);
    await new Promise((r) => setTimeout(r, 5));
    const e = transportError(new Error('aborted'), call(), d);
    expect(e.problem).toMatchObject({
      status: 504,
      error: 'upstream_timeout',
      detail: 'the upstream did not answer within 1 ms',
    });
  });

  it('should call a breaker abort a timeout and a client abort client_closed', () => {
    const d = new Deadline(10_000);
    const c1 = call();
    c1.breaker.abort();
    expect(transportError(new Error('aborted'), c1, d).kind).toBe('timeout');
    const c2 = call();
    c2.gone.abort();
    expect(transportError(new Error('aborted'), c2, d).kind).toBe('client_closed');
    d.clear();
  });

  it.each([
    ['ECONNREFUSED', 'failed', 502],
    ['ECONNRESET', 'failed', 502],
    ['UND_ERR_SOCKET', 'failed', 502],
    ['UND_ERR_CONNECT_TIMEOUT', 'timeout', 504],
    ['UND_ERR_HEADERS_TIMEOUT', 'timeout', 504],
  ])('should map %s to %s (%i) naming only the code', (code, kind, status) => {
    const d = new Deadline(10_000);
    const err = Object.assign(new Error(`connect ${code} 10.1.2.3:443`), { code });
    const e = transportError(err, call(), d);
    d.clear();
    expect(e.kind).toBe(kind);
    expect(e.problem.status).toBe(status);
    expect(e.problem.detail).toContain(code);
    expect(e.problem.detail).not.toContain('10.1.2.3');
  });
});
