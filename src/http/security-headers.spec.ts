import helmet from 'helmet';
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { securityHeaders } from './security-headers.js';

const response = (): ServerResponse => {
  const res = new ServerResponse(new IncomingMessage(new Socket()));
  res.setHeader('X-Powered-By', 'something');
  res.setHeader('x-request-id', 'r1');
  return res;
};

describe(securityHeaders.name, () => {
  it('should set exactly the headers helmet sets, and remove what it removes', () => {
    const byHelmet = response();
    helmet({ contentSecurityPolicy: false })({} as never, byHelmet as never, () => undefined);
    const ours = response();
    securityHeaders()(ours);
    expect(ours.getHeaders()).toEqual(byHelmet.getHeaders());
    expect(ours.getHeader('x-powered-by')).toBeUndefined();
    expect(ours.getHeader('x-frame-options')).toBe('SAMEORIGIN');
  });
});
