import { createSecretKey, randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ClientApp } from '../apps/app.types.js';
import { signatureHex, stringToSign } from './canonical.js';
import { verifyHmacRequest } from './hmac-verifier.js';
import type { SignedRequestView, VerifyOptions } from '../verify.types.js';

const NOW = 1_767_225_600_000;
const OPTS: VerifyOptions = { now: NOW, defaultSkewSeconds: 180 };
const secret = (): string => randomBytes(32).toString('base64url');

function appWith(
  secrets: { id: string; secret: string; notAfter?: number }[],
  extra: Partial<ClientApp> = {},
): ClientApp {
  return {
    id: 'app-1',
    tier: 'pro',
    active: true,
    debug: false,
    secrets: secrets.map((s) => ({
      id: s.id,
      key: createSecretKey(Buffer.from(s.secret)),
      ...(s.notAfter !== undefined ? { notAfter: s.notAfter } : {}),
    })),
    ...extra,
  };
}

interface Parts {
  appId: string;
  timestamp: string;
  nonce: string;
  method: string;
  target: string;
  body: Buffer;
}
const BASE: Parts = {
  appId: 'app-1',
  timestamp: String(NOW),
  nonce: 'nonce-0123456789abcdef',
  method: 'POST',
  target: '/v1/inference?b=2&a=1',
  body: Buffer.from('{"x":1}'),
};

function view(p: Parts, sig: string, extraHeaders: Record<string, string> = {}): SignedRequestView {
  return {
    method: p.method,
    target: p.target,
    body: p.body,
    scheme: 'http',
    headers: {
      'x-app-id': p.appId,
      'x-timestamp': p.timestamp,
      'x-nonce': p.nonce,
      'x-signature': sig,
      ...extraHeaders,
    },
  };
}

function signed(
  s: string,
  p: Parts = BASE,
  extraHeaders: Record<string, string> = {},
): SignedRequestView {
  return view(p, signatureHex(s, p), extraHeaders);
}

describe(verifyHmacRequest.name, () => {
  const s1 = secret();
  const app = appWith([{ id: 'k1', secret: s1 }]);
  const apps = new Map([[app.id, app]]);

  it('should accept a correctly signed request and name the app, key and nonce', () => {
    const r = verifyHmacRequest(signed(s1), apps, OPTS);
    expect(r).toMatchObject({
      ok: true,
      scheme: 'hmac',
      keyId: 'k1',
      nonce: BASE.nonce,
      nonceTtlMs: 361_000,
    });
    expect(r.ok && r.app.tier).toBe('pro');
  });

  it('should accept the canonical query in any order and with any escape case', () => {
    const sig = signatureHex(s1, BASE);
    expect(
      verifyHmacRequest(view({ ...BASE, target: '/v1/inference?a=1&b=2' }, sig), apps, OPTS).ok,
    ).toBe(true);
    expect(
      verifyHmacRequest(view({ ...BASE, target: '/v1/inference?a=%31&b=2' }, sig), apps, OPTS).ok,
    ).toBe(true);
  });

  it.each<[string, Record<string, string>]>([
    ['missing_header', { 'x-nonce': '' }],
    ['malformed_header', { 'x-timestamp': '1767225600' }],
    ['malformed_header', { 'x-nonce': 'short' }],
    ['malformed_header', { 'x-signature': 'ABCDEF'.repeat(10) + 'abcd' }],
    ['malformed_header', { 'x-key-id': 'a:b' }],
  ])('should answer %s for headers %j', (code, override) => {
    const v = signed(s1);
    Object.assign(v.headers, override);
    if (override['x-nonce'] === '') delete v.headers['x-nonce'];
    expect(verifyHmacRequest(v, apps, OPTS)).toMatchObject({ ok: false, code });
  });

  it('should accept timestamps at ±skew and refuse ±(skew + 1 s) with the server time', () => {
    for (const delta of [-180_000, 180_000]) {
      const p = { ...BASE, timestamp: String(NOW + delta) };
      expect(verifyHmacRequest(signed(s1, p), apps, OPTS).ok).toBe(true);
    }
    for (const delta of [-181_000, 181_000]) {
      const p = { ...BASE, timestamp: String(NOW + delta) };
      expect(verifyHmacRequest(signed(s1, p), apps, OPTS)).toMatchObject({
        ok: false,
        code: 'clock_skew',
        serverTime: NOW,
      });
    }
  });

  it('should apply the per-app skew and size the nonce TTL from it', () => {
    const tight = appWith([{ id: 'k1', secret: s1 }], { skewSeconds: 5 });
    const m = new Map([[tight.id, tight]]);
    expect(
      verifyHmacRequest(signed(s1, { ...BASE, timestamp: String(NOW - 6_000) }), m, OPTS),
    ).toMatchObject({ code: 'clock_skew' });
    expect(
      verifyHmacRequest(signed(s1, { ...BASE, timestamp: String(NOW - 5_000) }), m, OPTS),
    ).toMatchObject({ ok: true, nonceTtlMs: 11_000 });
  });

  it('should refuse unknown and inactive apps alike', () => {
    expect(verifyHmacRequest(signed(s1, { ...BASE, appId: 'ghost' }), apps, OPTS)).toMatchObject({
      ok: false,
      code: 'unknown_app',
    });
    const off = appWith([{ id: 'k1', secret: s1 }], { active: false });
    expect(verifyHmacRequest(signed(s1), new Map([[off.id, off]]), OPTS)).toMatchObject({
      ok: false,
      code: 'unknown_app',
    });
  });

  it('should accept every active rotation secret, with and without X-Key-Id', () => {
    const secrets = [secret(), secret(), secret()];
    const rot = appWith(secrets.map((s, i) => ({ id: `k${i}`, secret: s })));
    const m = new Map([[rot.id, rot]]);
    secrets.forEach((s, i) => {
      expect(verifyHmacRequest(signed(s), m, OPTS)).toMatchObject({ ok: true, keyId: `k${i}` });
      expect(verifyHmacRequest(signed(s, BASE, { 'x-key-id': `k${i}` }), m, OPTS)).toMatchObject({
        ok: true,
        keyId: `k${i}`,
      });
    });
    expect(
      verifyHmacRequest(signed(secrets[0]!, BASE, { 'x-key-id': 'k1' }), m, OPTS),
    ).toMatchObject({ ok: false, code: 'bad_signature' });
  });

  it('should refuse a retired secret (past notAfter) and keep the others working', () => {
    const old = secret();
    const fresh = secret();
    const rot = appWith([
      { id: 'old', secret: old, notAfter: NOW },
      { id: 'new', secret: fresh, notAfter: NOW + 1 },
    ]);
    const m = new Map([[rot.id, rot]]);
    expect(verifyHmacRequest(signed(old), m, OPTS)).toMatchObject({
      ok: false,
      code: 'bad_signature',
    });
    expect(verifyHmacRequest(signed(old, BASE, { 'x-key-id': 'old' }), m, OPTS)).toMatchObject({
      ok: false,
      code: 'bad_signature',
    });
    expect(verifyHmacRequest(signed(fresh), m, OPTS)).toMatchObject({ ok: true, keyId: 'new' });
  });

  it('should carry the string to sign for the debug flag, and the flag itself', () => {
    const dbg = appWith([{ id: 'k1', secret: s1 }], { debug: true });
    const r = verifyHmacRequest(signed(secret()), new Map([[dbg.id, dbg]]), OPTS);
    expect(r).toMatchObject({ ok: false, code: 'bad_signature', debug: true });
    expect(!r.ok && r.stringToSign).toBe(stringToSign(BASE));
    expect(!r.ok && r.stringToSign).toContain('\n/v1/inference?a=1&b=2\n');
  });

  describe('property: changing any single byte of a signed part breaks the signature', () => {
    const sig = signatureHex(s1, BASE);
    const flip = (s: string, i: number, b: number): string => {
      const bytes = Buffer.from(s, 'latin1');
      const at = i % bytes.length;
      bytes[at] = (bytes[at]! + 1 + (b % 254)) % 256;
      return bytes.toString('latin1');
    };
    const tweak = fc.tuple(fc.nat(), fc.nat());
    const rejected = (p: Parts): boolean => {
      const r = verifyHmacRequest(view(p, sig), apps, OPTS);
      return !r.ok;
    };

    it('should fail for the method', () => {
      fc.assert(
        fc.property(tweak, ([i, b]) => {
          const method = flip(BASE.method, i, b);
          fc.pre(method.toUpperCase() !== BASE.method); // the method is signed upper case (Node delivers it so)
          return rejected({ ...BASE, method });
        }),
      );
    });
    it('should fail for the path', () => {
      fc.assert(
        fc.property(tweak, ([i, b]) =>
          rejected({ ...BASE, target: flip('/v1/inference', i, b) + '?b=2&a=1' }),
        ),
      );
    });
    it('should fail for the query', () => {
      fc.assert(
        fc.property(tweak, ([i, b]) => {
          const q = flip('b=2&a=1', i, b);
          // Re-ordering or re-escaping is not a change: only count byte changes that change the canonical query.
          fc.pre(!['a=1&b=2', 'b=2&a=1'].includes(q) && !/%|&&|^&|&$/.test(q));
          return rejected({ ...BASE, target: `/v1/inference?${q}` });
        }),
      );
    });
    it('should fail for the body', () => {
      fc.assert(
        fc.property(tweak, ([i, b]) =>
          rejected({
            ...BASE,
            body: Buffer.from(flip(BASE.body.toString('latin1'), i, b), 'latin1'),
          }),
        ),
      );
    });
    it('should fail for the timestamp', () => {
      fc.assert(
        fc.property(fc.integer({ min: 1, max: 179_999 }), fc.boolean(), (d, neg) =>
          rejected({ ...BASE, timestamp: String(NOW + (neg ? -d : d)) }),
        ),
      );
    });
    it('should fail for the nonce', () => {
      const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-';
      fc.assert(
        fc.property(fc.nat(), fc.integer({ min: 1, max: 63 }), (i, b) => {
          const chars = [...BASE.nonce];
          const at = i % chars.length;
          chars[at] = alphabet[(alphabet.indexOf(chars[at]!) + b) % alphabet.length]!;
          return rejected({ ...BASE, nonce: chars.join('') });
        }),
      );
    });
    it('should fail for the app id', () => {
      const other = appWith([{ id: 'k1', secret: s1 }], { id: 'app-2' });
      const both = new Map([...apps, [other.id, other]]);
      fc.assert(
        fc.property(fc.nat(), fc.integer({ min: 1, max: 9 }), (i, b) => {
          const appId = i % 2 === 0 ? 'app-2' : `app-${1 + b}`;
          const r = verifyHmacRequest(view({ ...BASE, appId }, sig), both, OPTS);
          return !r.ok;
        }),
      );
    });
  });
});
