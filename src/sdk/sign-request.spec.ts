import { createSecretKey, randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { verifyHmacRequest } from '../locks/signature/hmac/hmac-verifier.js';
import type { ClientApp } from '../locks/signature/apps/app.types.js';
import { signRequest, signRequestDetailed, wireTarget } from './sign-request.js';
import { createSignedFetch } from './signed-fetch.js';

const secret = randomBytes(32).toString('base64url');
const app: ClientApp = {
  id: 'sdk-app',
  tier: 'free',
  active: true,
  debug: false,
  secrets: [{ id: 'k1', key: createSecretKey(Buffer.from(secret)) }],
};
const apps = new Map([[app.id, app]]);

describe(signRequest.name, () => {
  it('should reproduce the worked example of docs/signature.md', () => {
    const { cases } = JSON.parse(
      readFileSync(
        new URL('../../test/fixtures/signature-worked-example.json', import.meta.url),
        'utf8',
      ),
    ) as {
      cases: {
        secret: string;
        inputs: {
          appId: string;
          timestamp: string;
          nonce: string;
          method: string;
          target: string;
          body: string;
        };
        expected: { signature: string; stringToSign: string };
      }[];
    };
    for (const c of cases) {
      const s = signRequestDetailed({
        appId: c.inputs.appId,
        secret: c.secret,
        method: c.inputs.method,
        url: `http://localhost:3000${c.inputs.target}`,
        body: c.inputs.body,
        timestamp: c.inputs.timestamp,
        nonce: c.inputs.nonce,
      });
      expect(s.headers['x-signature']).toBe(c.expected.signature);
      expect(s.stringToSign).toBe(c.expected.stringToSign);
    }
  });

  it('should produce fresh nonces and the current time by default, and X-Key-Id only when given', () => {
    const a = signRequest({ appId: 'sdk-app', secret, method: 'GET', url: 'http://h/x' });
    const b = signRequest({
      appId: 'sdk-app',
      secret,
      method: 'GET',
      url: 'http://h/x',
      keyId: 'k1',
    });
    expect(a['x-nonce']).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(a['x-nonce']).not.toBe(b['x-nonce']);
    expect(Math.abs(Number(a['x-timestamp']) - Date.now())).toBeLessThan(5_000);
    expect(a['x-key-id']).toBeUndefined();
    expect(b['x-key-id']).toBe('k1');
  });

  it('should sign the target fetch will send (dot segments resolved, characters escaped)', () => {
    expect(wireTarget('http://h/a/./b/../c d?q=ü&x')).toBe('/a/c%20d?q=%C3%BC&x');
    expect(wireTarget('/v1/x?y=1')).toBe('/v1/x?y=1');
  });

  it('property: whatever the URL and body, the server verifies what the SDK signed', () => {
    const now = Date.now();
    fc.assert(
      fc.property(
        fc.webUrl({ withQueryParameters: true }),
        fc.uint8Array({ maxLength: 64 }),
        fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH'),
        (url, body, method) => {
          const headers = signRequest({
            appId: 'sdk-app',
            secret,
            method,
            url,
            body,
            timestamp: now,
          });
          const r = verifyHmacRequest(
            { method, target: wireTarget(url), headers, body: Buffer.from(body), scheme: 'http' },
            apps,
            { now, defaultSkewSeconds: 180 },
          );
          return r.ok;
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe(createSignedFetch.name, () => {
  it('should add the signature headers over the caller’s and pass the same body bytes on', async () => {
    let seen: { url: string; init: RequestInit } | undefined;
    const fake = (input: string | URL, init?: RequestInit): Promise<Response> => {
      seen = { url: String(input), init: init ?? {} };
      return Promise.resolve(new Response('ok'));
    };
    await createSignedFetch({ appId: 'sdk-app', secret }, fake)('http://h/v1/x?b=1', {
      method: 'POST',
      body: '{"a":1}',
      headers: { 'content-type': 'application/json', 'x-nonce': 'stale' },
    });
    const h = seen!.init.headers as Headers;
    expect(h.get('content-type')).toBe('application/json');
    expect(h.get('x-nonce')).not.toBe('stale');
    const r = verifyHmacRequest(
      {
        method: 'POST',
        target: '/v1/x?b=1',
        headers: Object.fromEntries(h),
        body: Buffer.from(seen!.init.body as string),
        scheme: 'http',
      },
      apps,
      { now: Date.now(), defaultSkewSeconds: 180 },
    );
    expect(r.ok).toBe(true);
  });

  it('should refuse a body it cannot sign byte for byte', () => {
    const f = createSignedFetch({ appId: 'sdk-app', secret }, () =>
      Promise.resolve(new Response()),
    );
    expect(() => f('http://h/x', { method: 'POST', body: new Blob(['x']) })).toThrow(TypeError);
  });
});
