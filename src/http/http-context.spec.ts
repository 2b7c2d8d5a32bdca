import { describe, expect, it } from 'vitest';
import { CidrSet, isValidCidr } from './cidr.js';
import {
  AnyReply,
  AnyRequest,
  clientAddress,
  rawUrl,
  requestState,
  takeOverReply,
} from './http-context.js';

function req(peer: string, xff?: string): AnyRequest {
  return {
    headers: xff ? { 'x-forwarded-for': xff } : {},
    method: 'GET',
    url: '/',
    socket: { remoteAddress: peer } as never,
  };
}

describe(clientAddress.name, () => {
  const trusted = new CidrSet(['10.0.0.0/8', '::1']);

  it('should use the socket peer when no proxy is trusted', () => {
    expect(clientAddress(req('203.0.113.9', '1.2.3.4'), new CidrSet([]))).toBe('203.0.113.9');
  });

  it('should ignore X-Forwarded-For from an untrusted peer', () => {
    expect(clientAddress(req('198.51.100.7', '1.2.3.4'), trusted)).toBe('198.51.100.7');
  });

  it('should take the right-most untrusted X-Forwarded-For entry behind a trusted proxy', () => {
    expect(clientAddress(req('10.1.2.3', '6.6.6.6, 203.0.113.5, 10.9.9.9'), trusted)).toBe(
      '203.0.113.5',
    );
  });

  it('should strip the IPv4-mapped IPv6 prefix', () => {
    expect(clientAddress(req('::ffff:10.1.2.3', '203.0.113.5'), trusted)).toBe('203.0.113.5');
    expect(clientAddress(req('::ffff:192.0.2.1'), trusted)).toBe('192.0.2.1');
  });

  it('should give every spelling of a forwarded IPv6 address one canonical form', () => {
    const trusted = new CidrSet(['10.0.0.0/8']);
    for (const hop of [
      '2001:db8::1',
      '2001:db8:0:0:0:0:0:1',
      '2001:DB8::1',
      '[2001:db8::1]:1234',
    ]) {
      expect(clientAddress(req('10.1.2.3', hop), trusted)).toBe('2001:db8::1');
    }
  });

  it('should use the peer, and say so, when a forwarded hop is not an address', () => {
    const trusted = new CidrSet(['10.0.0.0/8']);
    for (const hop of ['abc', '010.001.001.001', '203.0.113.5, bogus']) {
      let told = 0;
      expect(clientAddress(req('10.1.2.3', hop), trusted, () => told++)).toBe('10.1.2.3');
      expect(told).toBe(1);
    }
  });

  it('should fall back to the peer when X-Forwarded-For is absent', () => {
    expect(clientAddress(req('10.1.2.3'), trusted)).toBe('10.1.2.3');
  });
});

describe(isValidCidr.name, () => {
  it.each(['10.0.0.0/8', '192.168.1.1', '::1', 'fd00::/8', '0.0.0.0/0'])('should accept %s', (c) =>
    expect(isValidCidr(c)).toBe(true),
  );
  it.each(['10.0.0.0/33', 'x', '1.2.3.4/', '1.2.3.4/8/9', '::1/129', ''])('should reject %s', (c) =>
    expect(isValidCidr(c)).toBe(false),
  );
});

describe(rawUrl.name, () => {
  it('should prefer the original (wire) url over a router-rewritten one', () => {
    expect(rawUrl({ headers: {}, method: 'GET', url: '/x', originalUrl: '/a%2Fb?q=1' })).toBe(
      '/a%2Fb?q=1',
    );
    expect(rawUrl({ headers: {}, method: 'GET', url: '/x', raw: { url: '/raw?x' } })).toBe(
      '/raw?x',
    );
  });
});

describe(requestState.name, () => {
  it('should share one state between a fastify request and its raw Node request', () => {
    const raw = { headers: {}, method: 'GET', url: '/' } as AnyRequest;
    const wrapped = { headers: {}, method: 'GET', url: '/', raw } as AnyRequest;
    requestState(wrapped).appId = 'app-1';
    expect(requestState(raw).appId).toBe('app-1');
  });
});

describe(takeOverReply.name, () => {
  it("should carry a fastify reply's headers over to the raw response and hijack it", () => {
    const raw = new Map<string, unknown>();
    let hijacked = false;
    const reply = {
      raw: { setHeader: (n: string, v: unknown) => raw.set(n, v) },
      getHeaders: () => ({
        ratelimit: 'limit=10, remaining=9',
        'access-control-allow-origin': 'https://a.example',
        skipped: undefined,
      }),
      hijack: () => (hijacked = true),
    } as unknown as AnyReply;
    expect(takeOverReply(reply)).toBe(reply.raw);
    expect(hijacked).toBe(true);
    expect(Object.fromEntries(raw)).toEqual({
      ratelimit: 'limit=10, remaining=9',
      'access-control-allow-origin': 'https://a.example',
    });
  });

  it('should hand back an express response as it is', () => {
    const res = { setHeader: () => undefined } as unknown as AnyReply;
    expect(takeOverReply(res)).toBe(res);
  });
});
