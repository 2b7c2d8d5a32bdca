import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { signRequest as nodeSign } from '../sign-request.js';
import { signRequestRfc9421 as nodeSign9421 } from '../sign-rfc9421.js';
import { createSessionFetch, signRequest } from './index.js';

const creds = {
  appId: 'acme.web',
  secret: 'T84fiesVAywAkO3SCj9msazGVvJBreRGigOOUBkrD-s',
  keyId: 'sk1.acme.web.dXNlci00Mg.1764460800.1764461400.search+inference.Q2xvY2tzQW5kS2V5cw',
};
const segment = fc.stringMatching(/^[A-Za-z0-9%._~+ -中]{0,12}$/);
const query = fc.array(fc.tuple(segment, segment), { maxLength: 5 });

describe('browser SDK (WebCrypto) against the node SDK', () => {
  it('should give byte-identical Rampart-HMAC and RFC 9421 headers for any path, query and body', async () => {
    await fc.assert(
      fc.asyncProperty(
        segment,
        query,
        fc.string({ maxLength: 40 }),
        fc.constantFrom('GET', 'post', 'PUT'),
        async (path, q, body, method) => {
          const qs = q.map(([k, v]) => `${k}=${v}`).join('&');
          const url = `http://rampart.test/v1/${path}${qs ? `?${qs}` : ''}`;
          const o = {
            ...creds,
            method,
            url,
            body,
            timestamp: 1764460801234,
            nonce: 'bm9uY2Utb25lLTAwMDE',
          };
          expect(await signRequest(o)).toEqual(nodeSign(o));
          expect(await signRequest({ ...o, format: 'rfc9421' })).toEqual(nodeSign9421(o));
        },
      ),
      { numRuns: 150 },
    );
  });

  it('should fetch a key, reuse it, refresh it shortly before expiry and once after a key_expired answer', async () => {
    let now = 1_800_000_000_000;
    const realNow = Date.now;
    Date.now = () => now;
    try {
      const keys: string[] = [];
      const seen: string[] = [];
      let refuseNext = false;
      const fake = (async (url: string | URL, init?: RequestInit) => {
        if (String(url).endsWith('/key')) {
          const k = { ...creds, keyId: `${creds.keyId}${keys.length}`, expiresAt: now / 1000 + 60 };
          keys.push(k.keyId);
          return Response.json(k);
        }
        seen.push(new Headers(init?.headers).get('x-key-id')!);
        if (refuseNext) {
          refuseNext = false;
          return Response.json({ error: { code: 'key_expired' } }, { status: 401 });
        }
        return Response.json({ ok: true });
      }) as typeof fetch;
      const f = createSessionFetch({ keyUrl: 'http://app.test/key', fetch: fake });
      await f('http://rampart.test/v1/search?q=a');
      await f('http://rampart.test/v1/search?q=b');
      expect(keys).toHaveLength(1);
      now += 31_000; // 29 s left < refreshBeforeMs (30 s)
      await f('http://rampart.test/v1/search?q=c');
      expect(keys).toHaveLength(2);
      refuseNext = true;
      const res = await f('http://rampart.test/v1/search?q=d', { method: 'POST', body: '{}' });
      expect(res.status).toBe(200);
      expect(keys).toHaveLength(3);
      expect(seen).toEqual([keys[0], keys[0], keys[1], keys[1], keys[2]]);
    } finally {
      Date.now = realNow;
    }
  });
});
