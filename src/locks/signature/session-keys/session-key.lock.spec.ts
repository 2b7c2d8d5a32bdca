import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { LockContext } from '../../../chain/lock.types.js';
import { ManualClock } from '../../../common/clock.js';
import { ProblemException } from '../../../common/problem.exception.js';
import { MetricsService } from '../../../metrics/metrics.service.js';
import { signRequest } from '../../../sdk/sign-request.js';
import { signRequestRfc9421 } from '../../../sdk/sign-rfc9421.js';
import { AppRegistry } from '../apps/app-registry.js';
import { MemoryNonceStore } from '../nonce/memory-nonce.store.js';
import { SignatureLock } from '../signature.lock.js';
import { SignatureMetrics } from '../signature.metrics.js';
import { SecretTokenSources } from '../secret-token/secret-tokens.js';
import { SIGNATURE_SETTINGS_DEFAULTS } from '../signature.settings.js';
import { MemorySessionKeyStore } from './memory-session-key.store.js';
import { type SessionKey, createSessionKey } from './session-key-mint.js';

const SECRET = randomBytes(32).toString('base64url');
const OTHER = randomBytes(32).toString('base64url');
const SLICE = { mode: 'enforce' as const, signed: 'required' as const };

function setUp() {
  const clock = new ManualClock();
  const apps = new AppRegistry(clock);
  const app = (id: string, secret: string, epoch = 0) =>
    apps.upsert({
      id,
      tier: 'free',
      secrets: [{ id: 'k1', secret }],
      sessionKeys: { maxTtl: '10m', maxScope: ['search', 'inference'], epoch },
    });
  app('web', SECRET);
  app('other', OTHER);
  apps.upsert({ id: 'plain', tier: 'free', secrets: [{ id: 'k1', secret: SECRET }] });
  const nonces = new MemoryNonceStore(clock, { sweepIntervalMs: 0 });
  const sessions = new MemorySessionKeyStore(clock, nonces);
  const lock = new SignatureLock(
    apps,
    nonces,
    { ...SIGNATURE_SETTINGS_DEFAULTS },
    new SignatureMetrics(new MetricsService()),
    clock,
    sessions,
    new SecretTokenSources(),
  );
  const mint = (o: Partial<{ appId: string; secret: string; ttl: number; scope: string[] }> = {}) =>
    createSessionKey(o.secret ?? SECRET, {
      appId: o.appId ?? 'web',
      user: 'user-42',
      ttlSeconds: o.ttl ?? 300,
      scope: o.scope ?? ['inference'],
      now: clock.now(),
    });
  const call = async (
    key: SessionKey,
    o: {
      policy?: string;
      appId?: string;
      rfc?: boolean;
      userHeader?: string;
      state?: Record<string, unknown>;
    } = {},
  ) => {
    const sign = o.rfc ? signRequestRfc9421 : signRequest;
    const headers: Record<string, string> = sign({
      appId: o.appId ?? key.appId,
      secret: key.secret,
      keyId: key.keyId,
      method: 'GET',
      url: '/v1/x',
      timestamp: clock.now(),
    });
    if (o.userHeader) headers['x-user-id'] = o.userHeader;
    const ctx = {
      req: { headers, method: 'GET', url: '/v1/x' },
      reply: {},
      state: o.state ?? {},
      policyName: o.policy ?? 'inference',
      policy: { locks: {} },
      route: '/v1/x',
      mode: 'enforce',
    } as unknown as LockContext;
    try {
      // A refusal decided at once is returned (GuardLock.check); one after the nonce claim is thrown.
      const refused = await lock.check(ctx, SLICE);
      if (refused) throw refused;
      return { ok: true as const, state: ctx.state };
    } catch (e) {
      if (!(e instanceof ProblemException)) throw e;
      return { ok: false as const, error: (e.getResponse() as { error: string }).error };
    }
  };
  return { clock, apps, sessions, mint, call, app };
}

describe('SignatureLock with session keys', () => {
  it.each([false, true])(
    'should accept a key (RFC 9421: %s) and give the verified user to the later locks',
    async (rfc) => {
      const { mint, call } = setUp();
      const r = await call(mint(), { rfc });
      expect(r).toEqual({
        ok: true,
        state: expect.objectContaining({ appId: 'web', tier: 'free', userId: 'user-42' }),
      });
    },
  );

  it('should refuse a key after its expiry with key_expired, in both formats', async () => {
    const { clock, mint, call } = setUp();
    const key = mint({ ttl: 60 });
    clock.advance(59_000);
    expect((await call(key)).ok).toBe(true);
    clock.advance(1_000);
    expect(await call(key)).toEqual({ ok: false, error: 'key_expired' });
    expect(await call(key, { rfc: true })).toEqual({ ok: false, error: 'key_expired' });
  });

  it("should mark a key_expired within the app's refreshGrace (300 s) benign, not a risk signal, and not after it", async () => {
    const { clock, mint, call } = setUp();
    const key = mint({ ttl: 60 });
    clock.advance(60_000 + 299_000);
    const within: Record<string, unknown> = {};
    expect(await call(key, { state: within })).toEqual({ ok: false, error: 'key_expired' });
    expect(within.benignRefusal).toBe(true);
    clock.advance(1_000);
    const after: Record<string, unknown> = {};
    expect(await call(key, { state: after })).toEqual({ ok: false, error: 'key_expired' });
    expect(after.benignRefusal).toBeUndefined();
  });

  it("should refuse a key that lives longer than the app's maxTtl (minted offline)", async () => {
    const { mint, call } = setUp();
    expect(await call(mint({ ttl: 601 }))).toEqual({ ok: false, error: 'key_expired' });
  });

  it('should refuse a route outside the scope, and a scope beyond maxScope', async () => {
    const { mint, call } = setUp();
    expect(await call(mint(), { policy: 'search' })).toEqual({
      ok: false,
      error: 'key_out_of_scope',
    });
    expect(await call(mint({ scope: ['inference', 'admin'] }))).toEqual({
      ok: false,
      error: 'key_out_of_scope',
    });
  });

  it('should refuse every key issued before an epoch bump, and accept keys minted after it', async () => {
    const { clock, mint, call, app } = setUp();
    const old = mint();
    expect((await call(old)).ok).toBe(true);
    clock.advance(1_000);
    app('web', SECRET, Math.floor(clock.now() / 1000));
    expect(await call(old)).toEqual({ ok: false, error: 'key_revoked' });
    clock.advance(1_000);
    expect((await call(mint())).ok).toBe(true);
  });

  it('should refuse one denied key and keep the others working', async () => {
    const { mint, call, sessions } = setUp();
    const [a, b] = [mint(), mint()];
    await sessions.deny(a.keyId, 300_000);
    expect(await call(a)).toEqual({ ok: false, error: 'key_revoked' });
    expect((await call(b)).ok).toBe(true);
  });

  it('should refuse a key minted for one app when sent for another, and a forged one', async () => {
    const { mint, call } = setUp();
    expect(await call(mint(), { appId: 'other' })).toEqual({ ok: false, error: 'bad_signature' });
    const forged = { ...mint(), secret: randomBytes(32).toString('base64url') };
    expect(await call(forged)).toEqual({ ok: false, error: 'bad_signature' });
    expect(await call(mint({ appId: 'plain' }))).toEqual({ ok: false, error: 'key_out_of_scope' });
  });

  it('should keep the user from the key, whatever user header comes with it', async () => {
    const { mint, call } = setUp();
    const r = await call(mint(), { userHeader: 'someone-else' });
    expect(r.ok && r.state.userId).toBe('user-42');
  });
});
