import * as crypto from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createSigner, httpbis } from 'http-message-signatures';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ClientApp } from '../apps/app.types.js';
import { verifyRfc9421Request } from '../rfc9421/rfc9421-verifier.js';
import type { SignedRequestView, VerifyOptions } from '../verify.types.js';
import { signatureHex } from './canonical.js';
import { verifyHmacRequest } from './hmac-verifier.js';
import { DUMMY_KEY, macEquals, matchSecret } from './mac.js';

/**
 * What a verification costs, counted rather than timed: node:crypto is
 * wrapped so every HMAC computed and every MAC comparison made is recorded
 * (with its key and its operands). Wall-clock timing would be flaky on a
 * shared machine; the count and the comparator are what make the timing.
 */
vi.mock('node:crypto', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:crypto')>();
  return {
    ...real,
    createHmac: vi.fn(real.createHmac),
    timingSafeEqual: vi.fn(real.timingSafeEqual),
  };
});
const createHmac = vi.mocked(crypto.createHmac);
const timingSafeEqual = vi.mocked(crypto.timingSafeEqual);

const NOW = 1_767_225_600_000;
const OPTS: VerifyOptions = { now: NOW, defaultSkewSeconds: 180 };
const PARTS = {
  appId: 'app-1',
  timestamp: String(NOW),
  nonce: 'nonce-0123456789abcdef',
  method: 'GET',
  target: '/v1/whoami',
  body: Buffer.alloc(0),
};
const SECRETS = ['first-secret-0123456789', 'second-secret-0123456789', 'third-secret-0123456789'];

function app(secrets: string[], id = 'app-1'): ClientApp {
  return {
    id,
    tier: 'free',
    active: true,
    debug: false,
    secrets: secrets.map((s, i) => ({
      id: `k${i + 1}`,
      key: crypto.createSecretKey(Buffer.from(s)),
    })),
  };
}

function request(sig: string, appId = PARTS.appId): SignedRequestView {
  return {
    method: PARTS.method,
    target: PARTS.target,
    body: PARTS.body,
    scheme: 'http',
    headers: {
      'x-app-id': appId,
      'x-timestamp': PARTS.timestamp,
      'x-nonce': PARTS.nonce,
      'x-signature': sig,
    },
  };
}

/** Keys of the HMACs computed and byte lengths of the comparisons made since the last reset. */
function costs() {
  return {
    keys: createHmac.mock.calls.map((c) => c[1]),
    compared: timingSafeEqual.mock.calls.map(([a, b]) => [
      (a as Buffer).length,
      (b as Buffer).length,
    ]),
  };
}

describe('MAC cost and comparison (lock 1)', () => {
  beforeEach(() => {
    createHmac.mockClear();
    timingSafeEqual.mockClear();
  });
  afterEach(() => vi.clearAllMocks());

  it('should cost an unknown app exactly one HMAC, against the dummy key, and one full-length comparison', () => {
    const sig = signatureHex(SECRETS[0]!, { ...PARTS, appId: 'no-such-app' });
    createHmac.mockClear();
    const r = verifyHmacRequest(request(sig, 'no-such-app'), new Map(), OPTS);
    expect(r).toMatchObject({ ok: false, code: 'unknown_app' });
    const c = costs();
    expect(c.keys).toEqual([DUMMY_KEY]);
    expect(c.compared).toEqual([[32, 32]]);
  });

  it('should cost a known app with one secret the same: one HMAC, one comparison', () => {
    const known = app([SECRETS[0]!]);
    const r = verifyHmacRequest(request('ab'.repeat(32)), new Map([[known.id, known]]), OPTS);
    expect(r).toMatchObject({ ok: false, code: 'bad_signature' });
    const c = costs();
    expect(c.keys).toEqual([known.secrets[0]!.key]);
    expect(c.compared).toEqual([[32, 32]]);
  });

  it('should cost an inactive app one HMAC against the dummy key too', () => {
    const inactive = { ...app([SECRETS[0]!]), active: false };
    const sig = signatureHex(SECRETS[0]!, PARTS);
    createHmac.mockClear();
    const r = verifyHmacRequest(request(sig), new Map([[inactive.id, inactive]]), OPTS);
    expect(r).toMatchObject({ ok: false, code: 'unknown_app' });
    expect(costs().keys).toEqual([DUMMY_KEY]);
  });

  it.each([0, 1, 2])(
    'should compute and compare every active secret when secret %i matches (no early exit)',
    (matching) => {
      const three = app(SECRETS);
      const sig = signatureHex(SECRETS[matching]!, PARTS);
      createHmac.mockClear();
      const r = verifyHmacRequest(request(sig), new Map([[three.id, three]]), OPTS);
      expect(r).toMatchObject({ ok: true, keyId: `k${matching + 1}` });
      const c = costs();
      expect(c.keys).toEqual(three.secrets.map((s) => s.key));
      expect(c.compared).toEqual([
        [32, 32],
        [32, 32],
        [32, 32],
      ]);
    },
  );

  it('should cost an unknown app one HMAC against the dummy key on RFC 9421 too', async () => {
    const signed = await httpbis.signMessage(
      {
        key: createSigner(Buffer.from(SECRETS[0]!), 'hmac-sha256', 'no-such-app'),
        fields: ['@method', '@path'],
        params: ['created', 'keyid', 'alg', 'nonce'],
        paramValues: { created: new Date(NOW), nonce: 'nonce-0123456789abcdef' },
      },
      { method: 'GET', url: 'http://127.0.0.1:3000/v1/whoami', headers: {} },
    );
    createHmac.mockClear();
    timingSafeEqual.mockClear();
    const headers = Object.fromEntries(
      Object.entries(signed.headers).map(([k, v]) => [k.toLowerCase(), v as string]),
    );
    const r = verifyRfc9421Request(
      { method: 'GET', target: '/v1/whoami', headers, body: Buffer.alloc(0), scheme: 'http' },
      new Map([['app-1', app(SECRETS)]]),
      OPTS,
    );
    expect(r).toMatchObject({ ok: false, code: 'unknown_app' });
    const c = costs();
    expect(c.keys).toEqual([DUMMY_KEY]);
    expect(c.compared).toEqual([[32, 32]]);
  });

  it('should cost an unknown key id one HMAC against the dummy key', () => {
    const three = app(SECRETS);
    const given = Buffer.alloc(32, 7);
    expect(matchSecret(three, 'k9', 'data', given, NOW)).toBeUndefined();
    expect(costs().keys).toEqual([DUMMY_KEY]);
  });

  it('should compare whole MACs: a difference in any one byte is found by one timingSafeEqual over all 32 bytes', () => {
    const expected = crypto.randomBytes(32);
    for (let i = 0; i < 32; i++) {
      const given = Buffer.from(expected);
      given[i]! ^= 1;
      timingSafeEqual.mockClear();
      expect(macEquals(expected, given)).toBe(false);
      expect(costs().compared).toEqual([[32, 32]]);
    }
    expect(macEquals(expected, Buffer.from(expected))).toBe(true);
  });

  it('should still make one comparison, not an early return, when the lengths differ', () => {
    const expected = crypto.randomBytes(32);
    expect(macEquals(expected, Buffer.alloc(5))).toBe(false);
    expect(costs().compared).toEqual([[32, 32]]);
  });

  it('should compare secrets and MACs nowhere in the lock with ===, Buffer#equals or Buffer.compare', () => {
    const dir = join(import.meta.dirname, '..');
    const files = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter(
      (f) => f.endsWith('.ts') && !f.endsWith('.spec.ts'),
    );
    expect(files.length).toBeGreaterThan(10);
    for (const f of files) {
      const text = readFileSync(join(dir, f), 'utf8');
      expect(text, f).not.toMatch(/\.equals\(|Buffer\.compare\(|\.compare\(/);
      expect(text, f).not.toMatch(
        /(signature|sig|mac|digest|secret)\w*\s*[!=]==\s*\w*(signature|sig|mac|digest|secret)/i,
      );
    }
  });
});
