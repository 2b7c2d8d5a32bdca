import { createHmac, createSecretKey, randomBytes } from 'node:crypto';
import { createSigner, httpbis } from 'http-message-signatures';
import { describe, expect, it } from 'vitest';
import type { ClientApp } from '../apps/app.types.js';
import { contentDigest } from './content-digest.js';
import { signatureBase } from './rfc9421-base.js';
import { parseRfc9421 } from './rfc9421-input.js';
import { verifyRfc9421Request } from './rfc9421-verifier.js';
import { parseDictionary } from './structured-fields.js';
import { isInnerList, type InnerList } from './structured-fields.types.js';
import { serializeInnerList } from './structured-fields-serialize.js';
import type { SignedRequestView, VerifyOptions } from '../verify.types.js';

describe('RFC 9421 Appendix B.2.5 (hmac-sha256)', () => {
  const key = Buffer.from(
    'uzvJfB4u3N0Jy4T7NZ75MDVcr8zSTInedJtkgcu46YW4XByzNJjxBdtjUkdJPBtbmHhIDi6pcl8jsasjlTMtDQ==',
    'base64',
  );
  const input =
    'sig-b25=("date" "@authority" "content-type");created=1618884473;keyid="test-shared-secret"';
  const message = {
    method: 'POST',
    target: '/foo?param=Value&Pet=dog',
    scheme: 'https' as const,
    headers: {
      host: 'example.com',
      date: 'Tue, 20 Apr 2021 02:07:55 GMT',
      'content-type': 'application/json',
      'content-digest':
        'sha-512=:WZDPaVn/7XgHaAy8pmojAkGWoRx2UFChF41A2svX+TaPm+AbwAgBWnrIiYllu7BNNyealdVLvRwEmTHWXvJwew==:',
      'content-length': '18',
      'signature-input': input,
      signature: 'sig-b25=:pxcQw6G3AjtMBQjwo8XzkZf/bws5LelbaMk5rGIGtE8=:',
    },
  };

  it('should rebuild the signature base and the signature of the RFC', () => {
    const member = parseDictionary(input).get('sig-b25')!;
    expect(isInnerList(member)).toBe(true);
    const params = serializeInnerList(member as InnerList);
    expect(params).toBe(
      '("date" "@authority" "content-type");created=1618884473;keyid="test-shared-secret"',
    );
    const built = signatureBase(['date', '@authority', 'content-type'], params, message);
    expect(built).toEqual({
      base: [
        '"date": Tue, 20 Apr 2021 02:07:55 GMT',
        '"@authority": example.com',
        '"content-type": application/json',
        '"@signature-params": ("date" "@authority" "content-type");created=1618884473;keyid="test-shared-secret"',
      ].join('\n'),
    });
    const sig = createHmac('sha256', key)
      .update((built as { base: string }).base)
      .digest('base64');
    expect(sig).toBe('pxcQw6G3AjtMBQjwo8XzkZf/bws5LelbaMk5rGIGtE8=');
  });

  it('should still be refused by the lock: it covers neither method nor path nor body, and has no nonce', () => {
    const parsed = parseRfc9421(message.headers);
    expect(parsed).toMatchObject({ ok: false, code: 'malformed_header' });
  });

  it('should compute the RFC 9530 digests of its body', () => {
    expect(contentDigest('{"hello": "world"}', 'sha-512')).toBe(message.headers['content-digest']);
    expect(contentDigest('{"hello": "world"}')).toBe(
      'sha-256=:X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE=:',
    );
  });
});

const NOW = 1_767_225_600_000;
const OPTS: VerifyOptions = { now: NOW, defaultSkewSeconds: 180 };

describe(verifyRfc9421Request.name, () => {
  const secret = randomBytes(32).toString('base64url');
  const app: ClientApp = {
    id: 'app-1',
    tier: 'free',
    active: true,
    debug: false,
    secrets: [{ id: 'k1', key: createSecretKey(Buffer.from(secret)) }],
  };
  const apps = new Map([[app.id, app]]);

  interface Req {
    method: string;
    url: string;
    headers: Record<string, string>;
    body?: string;
  }
  async function sign(
    req: Req,
    opts: {
      fields?: string[];
      keyid?: string;
      created?: number;
      nonce?: string;
      key?: string;
    } = {},
  ): Promise<Req> {
    const fields = opts.fields ?? [
      '@method',
      '@path',
      '@query',
      '@authority',
      'content-type',
      'content-digest',
    ];
    const signer = createSigner(
      Buffer.from(opts.key ?? secret),
      'hmac-sha256',
      opts.keyid ?? 'app-1',
    );
    const nonce = opts.nonce ?? randomBytes(16).toString('base64url');
    return httpbis.signMessage(
      {
        key: signer,
        fields,
        params: ['created', 'keyid', 'alg', 'nonce', 'expires'],
        paramValues: { created: new Date(opts.created ?? NOW), nonce },
      },
      req,
    );
  }
  function toView(r: Req, body = r.body ?? ''): SignedRequestView {
    const u = new URL(r.url);
    const headers = Object.fromEntries(
      Object.entries(r.headers).map(([k, v]) => [k.toLowerCase(), v]),
    );
    return {
      method: r.method,
      target: u.pathname + u.search,
      headers: { host: u.host, ...headers },
      body: Buffer.from(body),
      scheme: 'http',
    };
  }
  const body = '{"model":"demo","messages":[]}';
  const post = (): Req => ({
    method: 'POST',
    url: 'http://127.0.0.1:3000/v1/inference?stream=false',
    headers: { 'content-type': 'application/json', 'content-digest': contentDigest(body) },
    body,
  });

  it('should accept a request signed by the http-message-signatures client', async () => {
    const r = verifyRfc9421Request(toView(await sign(post())), apps, OPTS);
    expect(r).toMatchObject({ ok: true, scheme: 'rfc9421', keyId: 'k1', nonceTtlMs: 361_000 });
  });

  it('should accept keyid "<app>:<key>" and @target-uri instead of @path/@query', async () => {
    const signed = await sign(post(), {
      keyid: 'app-1:k1',
      fields: ['@method', '@target-uri', 'content-digest'],
    });
    expect(verifyRfc9421Request(toView(signed), apps, OPTS)).toMatchObject({
      ok: true,
      keyId: 'k1',
    });
  });

  it('should accept a GET without body or query covering only @method and @path', async () => {
    const signed = await sign(
      { method: 'GET', url: 'http://127.0.0.1:3000/v1/whoami', headers: {} },
      { fields: ['@method', '@path'] },
    );
    expect(verifyRfc9421Request(toView(signed), apps, OPTS).ok).toBe(true);
  });

  it.each([
    ['the method', (v: SignedRequestView) => ({ ...v, method: 'PUT' }), 'bad_signature'],
    [
      'the path',
      (v: SignedRequestView) => ({ ...v, target: v.target.replace('inference', 'inferencf') }),
      'bad_signature',
    ],
    [
      'the query',
      (v: SignedRequestView) => ({ ...v, target: v.target.replace('false', 'true') }),
      'bad_signature',
    ],
    [
      'the body',
      (v: SignedRequestView) => ({ ...v, body: Buffer.from(body.replace('demo', 'dem0')) }),
      'bad_signature',
    ],
    [
      'the content-type',
      (v: SignedRequestView) => ({ ...v, headers: { ...v.headers, 'content-type': 'text/plain' } }),
      'bad_signature',
    ],
    [
      'the authority',
      (v: SignedRequestView) => ({ ...v, headers: { ...v.headers, host: 'evil.example' } }),
      'bad_signature',
    ],
    [
      'the body and its digest',
      (v: SignedRequestView) => ({
        ...v,
        body: Buffer.from('{}'),
        headers: { ...v.headers, 'content-digest': contentDigest('{}') },
      }),
      'bad_signature',
    ],
  ])('should refuse the signed request with %s changed', async (_what, mutate, code) => {
    const v = toView(await sign(post()));
    expect(verifyRfc9421Request(v, apps, OPTS).ok).toBe(true);
    expect(verifyRfc9421Request(mutate(v), apps, OPTS)).toMatchObject({ ok: false, code });
  });

  it.each([
    ['without @method', ['@path', '@query', 'content-digest'], '@method'],
    ['without @path', ['@method', '@query', 'content-digest'], '@path'],
    ['without @query when there is a query', ['@method', '@path', 'content-digest'], '@query'],
    [
      'without content-digest when there is a body',
      ['@method', '@path', '@query'],
      'content-digest',
    ],
  ])('should refuse a signature %s', async (_what, fields, missing) => {
    const r = verifyRfc9421Request(toView(await sign(post(), { fields })), apps, OPTS);
    expect(r).toMatchObject({ ok: false, code: 'malformed_header' });
    expect(!r.ok && r.detail).toContain(missing);
  });

  it('should refuse created outside the skew, an unknown app and a wrong key', async () => {
    expect(
      verifyRfc9421Request(toView(await sign(post(), { created: NOW - 181_000 })), apps, OPTS),
    ).toMatchObject({ code: 'clock_skew', serverTime: NOW });
    expect(
      verifyRfc9421Request(toView(await sign(post(), { keyid: 'ghost' })), apps, OPTS),
    ).toMatchObject({ code: 'unknown_app' });
    expect(
      verifyRfc9421Request(
        toView(await sign(post(), { key: randomBytes(32).toString('hex') })),
        apps,
        OPTS,
      ),
    ).toMatchObject({ code: 'bad_signature' });
    expect(
      verifyRfc9421Request(toView(await sign(post(), { keyid: 'app-1:k9' })), apps, OPTS),
    ).toMatchObject({ code: 'bad_signature' });
  });

  it('should refuse a missing nonce and a foreign algorithm', async () => {
    const noNonce = await sign(post());
    noNonce.headers['Signature-Input'] = noNonce.headers['Signature-Input']!.replace(
      /;nonce="[^"]*"/,
      '',
    );
    expect(verifyRfc9421Request(toView(noNonce), apps, OPTS)).toMatchObject({
      code: 'malformed_header',
    });
    const rsa = await sign(post());
    rsa.headers['Signature-Input'] = rsa.headers['Signature-Input']!.replace(
      'alg="hmac-sha256"',
      'alg="rsa-pss-sha512"',
    );
    expect(verifyRfc9421Request(toView(rsa), apps, OPTS)).toMatchObject({
      code: 'malformed_header',
    });
  });
});
