import { createSecretKey, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { ClientApp } from '../locks/signature/apps/app.types.js';
import { verifyHmacRequest } from '../locks/signature/hmac/hmac-verifier.js';
import { verifyRfc9421Request } from '../locks/signature/rfc9421/rfc9421-verifier.js';
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
const opts = { now: Date.now(), defaultSkewSeconds: 180 };

/** A fetch that answers 200 and keeps what it was given. */
function recorder(): {
  sent: { url: URL; init: RequestInit }[];
  fetch: (url: URL, init?: RequestInit) => Promise<Response>;
} {
  const sent: { url: URL; init: RequestInit }[] = [];
  return {
    sent,
    fetch: (url, init = {}) => {
      sent.push({ url, init });
      return Promise.resolve(new Response('ok'));
    },
  };
}

function view(s: { url: URL; init: RequestInit }) {
  const body = s.init.body;
  return {
    method: s.init.method ?? 'GET',
    target: s.url.pathname + s.url.search,
    headers: Object.fromEntries(s.init.headers as Headers),
    body: Buffer.from(typeof body === 'string' ? body : new Uint8Array(body as ArrayBuffer)),
    scheme: 'http' as const,
  };
}

describe(createSignedFetch.name, () => {
  it('should sign every call afresh, as a client that retries calls fetch again', async () => {
    const rec = recorder();
    const f = createSignedFetch({ appId: 'sdk-app', secret }, rec.fetch);
    const init = { method: 'POST', body: '{"a":1}', headers: { 'x-stainless-retry-count': '0' } };
    await f('http://h/v1/chat/completions', init);
    await f('http://h/v1/chat/completions', init);
    const [a, b] = rec.sent.map((s) => new Headers(s.init.headers).get('x-nonce'));
    expect(a).not.toBe(b);
    for (const s of rec.sent) expect(verifyHmacRequest(view(s), apps, opts).ok).toBe(true);
  });

  it('should read a Request (method, headers, body) and sign it', async () => {
    const rec = recorder();
    const f = createSignedFetch({ appId: 'sdk-app', secret }, rec.fetch);
    await f(
      new Request('http://h/v1/x?b=2&a=1', {
        method: 'PUT',
        body: 'payload',
        headers: { 'content-type': 'text/plain', 'x-own': '1' },
      }),
      { headers: { 'x-extra': '2' } },
    );
    const s = rec.sent[0]!;
    const h = s.init.headers as Headers;
    expect([s.init.method, h.get('x-own'), h.get('x-extra'), h.get('content-type')]).toEqual([
      'PUT',
      '1',
      '2',
      'text/plain',
    ]);
    expect(verifyHmacRequest(view(s), apps, opts).ok).toBe(true);
  });

  it('should sign with RFC 9421 when asked', async () => {
    const rec = recorder();
    const f = createSignedFetch({ appId: 'sdk-app', secret, scheme: 'rfc9421' }, rec.fetch);
    await f('http://h/v1/chat/completions', { method: 'POST', body: '{"a":1}' });
    const s = rec.sent[0]!;
    const h = s.init.headers as Headers;
    expect(h.get('x-signature')).toBeNull();
    expect(h.get('content-digest')).toMatch(/^sha-256=/);
    expect(verifyRfc9421Request(view(s), apps, opts)).toMatchObject({ ok: true });
  });

  it('should refuse an input that is neither a URL nor a Request', () => {
    const f = createSignedFetch({ appId: 'sdk-app', secret }, recorder().fetch);
    expect(() => f({ url: 'http://h/' } as unknown as string)).toThrow(TypeError);
  });
});
