import { createSecretKey, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { ClientApp } from '../locks/signature/apps/app.types.js';
import { verifyRfc9421Request } from '../locks/signature/rfc9421/rfc9421-verifier.js';
import { signRequestRfc9421 } from './sign-rfc9421.js';

const secret = randomBytes(32).toString('base64url');
const app: ClientApp = {
  id: 'sdk-app',
  tier: 'free',
  active: true,
  debug: false,
  secrets: [{ id: 'k1', key: createSecretKey(Buffer.from(secret)) }],
};
const apps = new Map([[app.id, app]]);

function verify(method: string, target: string, headers: Record<string, string>, body = '') {
  return verifyRfc9421Request(
    { method, target, headers, body: Buffer.from(body), scheme: 'http' },
    apps,
    { now: Date.now(), defaultSkewSeconds: 180 },
  );
}

describe(signRequestRfc9421.name, () => {
  it('should sign a POST with a body so that the server verifies it', () => {
    const body = '{"model":"m","messages":[{"role":"user","content":"hi"}]}';
    const h = signRequestRfc9421({
      appId: 'sdk-app',
      secret,
      keyId: 'k1',
      method: 'post',
      url: 'http://h/v1/chat/completions',
      body,
    });
    expect(h['signature-input']).toMatch(
      /^sig1=\("@method" "@path" "content-digest"\);created=\d+;keyid="sdk-app:k1";alg="hmac-sha256";nonce="[\w-]{22}"$/,
    );
    expect(h['content-digest']).toMatch(/^sha-256=:[A-Za-z0-9+/]+=*:$/);
    const r = verify('POST', '/v1/chat/completions', h, body);
    expect(r).toMatchObject({ ok: true, scheme: 'rfc9421', keyId: 'k1' });
  });

  it('should cover the query of a GET and add no digest without a body', () => {
    const h = signRequestRfc9421({
      appId: 'sdk-app',
      secret,
      method: 'GET',
      url: 'http://h/v1/models?limit=2&after=x',
    });
    expect(h['content-digest']).toBeUndefined();
    expect(h['signature-input']).toContain('("@method" "@path" "@query")');
    expect(verify('GET', '/v1/models?limit=2&after=x', h)).toMatchObject({ ok: true });
  });

  it('should use the given time and nonce, and fail verification when the body changes', () => {
    const h = signRequestRfc9421({
      appId: 'sdk-app',
      secret,
      method: 'POST',
      url: '/x',
      body: 'a',
      timestamp: 1_767_225_600_999,
      nonce: 'n0nce-5f2b9c1e7a3d4b21',
    });
    expect(h['signature-input']).toContain(';created=1767225600;');
    expect(h['signature-input']).toContain(';nonce="n0nce-5f2b9c1e7a3d4b21"');
    const fresh = signRequestRfc9421({
      appId: 'sdk-app',
      secret,
      method: 'POST',
      url: '/x',
      body: 'a',
    });
    expect(verify('POST', '/x', fresh, 'b')).toMatchObject({ ok: false, code: 'bad_signature' });
  });

  it('should make a new nonce every time', () => {
    const sign = () =>
      signRequestRfc9421({ appId: 'sdk-app', secret, method: 'GET', url: '/x' })['signature-input'];
    expect(sign()).not.toBe(sign());
  });
});
