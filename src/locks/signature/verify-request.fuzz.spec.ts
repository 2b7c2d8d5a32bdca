import { createSecretKey } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  MUTATIONS,
  mutate,
  prng,
  type WireRequest,
} from '../../../test/support/signature-mutator.js';
import type { ClientApp } from './apps/app.types.js';
import { signatureHex } from './hmac/canonical.js';
import { verifyRequest } from './verify-request.js';

/**
 * Security sweep: 100,000 mutated signed requests through the verifier the
 * signature lock runs (in process; the over-HTTP sample with the nonce store
 * and both adapters is test/e2e/signature-fuzz.e2e.spec.ts). Every mutation
 * changes something the MAC covers or the headers it needs, so none may be
 * accepted, and the verifier must never throw.
 */
const RUNS = 100_000;
const SEED = Number(process.env.FUZZ_SEED ?? 0x5eed);
const NOW = 1_767_225_600_000;

const secrets = { 'app-a': 'secret-of-app-a-0123456789', 'app-b': 'secret-of-app-b-0123456789' };
const apps = new Map<string, ClientApp>(
  Object.entries(secrets).map(([id, s]) => [
    id,
    {
      id,
      tier: 'pro',
      active: true,
      debug: false,
      secrets: [
        { id: 'k1', key: createSecretKey(Buffer.from(s)) },
        { id: 'k2', key: createSecretKey(Buffer.from(`${s}-next`)) },
      ],
    },
  ]),
);

function signed(
  appId: keyof typeof secrets,
  method: string,
  target: string,
  body: string,
): WireRequest {
  const parts = {
    appId,
    timestamp: String(NOW - 1_000),
    nonce: `nonce-${appId}-${method}-0123456789`.slice(0, 40),
    method,
    target,
    body: Buffer.from(body),
  };
  return {
    method,
    target,
    body: parts.body,
    headers: {
      'x-app-id': appId,
      'x-timestamp': parts.timestamp,
      'x-nonce': parts.nonce,
      'x-signature': signatureHex(secrets[appId], parts),
    },
  };
}

const BASES = [
  signed('app-a', 'GET', '/v1/search?q=paris&limit=5', ''),
  signed(
    'app-a',
    'POST',
    '/v1/chat/completions',
    '{"model":"m","messages":[{"role":"user","content":"hi"}]}',
  ),
  signed('app-b', 'GET', '/v1/whoami', ''),
  signed('app-b', 'POST', '/v1/inference?stream=false', '{"a":1}'),
];

const verify = (r: WireRequest) =>
  verifyRequest(
    { method: r.method, target: r.target, headers: r.headers, body: r.body, scheme: 'http' },
    apps,
    { now: NOW, defaultSkewSeconds: 180 },
  );

describe('signature verifier fuzz (100k mutated signed requests)', () => {
  it('should accept every unmutated base request', () => {
    for (const b of BASES) expect(verify(b)).toMatchObject({ ok: true });
  });

  it(`should accept none of ${RUNS.toLocaleString('en-US')} mutations and never throw (seed ${SEED})`, () => {
    const rnd = prng(SEED);
    const byKind = new Map<string, number>();
    const codes = new Map<string, number>();
    const accepted: string[] = [];
    for (let i = 0; i < RUNS; i++) {
      const base = BASES[i % BASES.length]!;
      const { req, kind } = mutate(base, rnd, ['app-a', 'app-b', 'no-such-app']);
      byKind.set(kind, (byKind.get(kind) ?? 0) + 1);
      const r = verify(req);
      if (r.ok) accepted.push(`${kind}: ${JSON.stringify({ ...req, body: req.body.toString() })}`);
      else
        codes.set(
          'code' in r ? r.code : 'unsigned',
          (codes.get('code' in r ? r.code : 'unsigned') ?? 0) + 1,
        );
    }
    expect(accepted.slice(0, 5)).toEqual([]);
    // Every kind of mutation ran, and the refusals span the lock's codes.
    expect([...byKind.keys()].sort()).toEqual([...MUTATIONS].sort());
    for (const code of [
      'bad_signature',
      'malformed_header',
      'missing_header',
      'clock_skew',
      'unknown_app',
    ])
      expect(codes.get(code), code).toBeGreaterThan(0);
  });
});
