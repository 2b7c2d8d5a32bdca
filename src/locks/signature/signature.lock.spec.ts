import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { LockContext } from '../../chain/lock.types.js';
import { ManualClock } from '../../common/clock.js';
import { ProblemException } from '../../common/problem.exception.js';
import { MetricsService } from '../../metrics/metrics.service.js';
import { AppRegistry } from './apps/app-registry.js';
import { SIGNATURE_HEADERS, signatureHex } from './hmac/canonical.js';
import { MemoryNonceStore } from './nonce/memory-nonce.store.js';
import { MemorySessionKeyStore } from './session-keys/memory-session-key.store.js';
import { SecretTokenSources } from './secret-token/secret-tokens.js';
import { SignatureLock } from './signature.lock.js';
import { SignatureMetrics } from './signature.metrics.js';
import { SIGNATURE_SETTINGS_DEFAULTS } from './signature.settings.js';
import type { SignatureSlice } from './signature.types.js';

const SECRET = randomBytes(32).toString('base64url');
const REQUIRED: SignatureSlice = { mode: 'enforce', signed: 'required' };
const OPTIONAL: SignatureSlice = { mode: 'enforce', signed: 'optional' };

function setUp() {
  const clock = new ManualClock();
  const apps = new AppRegistry(clock);
  apps.upsert({ id: 'app-1', tier: 'pro', secrets: [{ id: 'k1', secret: SECRET }] });
  const nonces = new MemoryNonceStore(clock, { sweepIntervalMs: 0 });
  const metrics = new MetricsService();
  const lock = new SignatureLock(
    apps,
    nonces,
    { ...SIGNATURE_SETTINGS_DEFAULTS },
    new SignatureMetrics(metrics),
    clock,
    new MemorySessionKeyStore(clock, nonces),
    new SecretTokenSources(),
  );
  return { clock, lock, metrics };
}

/** A GET signed at `timestamp` (epoch ms) with `nonce`, as the lock sees it. */
function ctx(o: { timestamp?: number; nonce?: string } = {}): LockContext {
  const headers: Record<string, string> = {};
  if (o.timestamp !== undefined) {
    const nonce = o.nonce ?? randomBytes(12).toString('base64url');
    const inputs = {
      appId: 'app-1',
      timestamp: String(o.timestamp),
      nonce,
      method: 'GET',
      target: '/v1/whoami',
    };
    headers[SIGNATURE_HEADERS.appId] = inputs.appId;
    headers[SIGNATURE_HEADERS.timestamp] = inputs.timestamp;
    headers[SIGNATURE_HEADERS.nonce] = nonce;
    headers[SIGNATURE_HEADERS.signature] = signatureHex(SECRET, inputs);
  }
  return {
    req: { headers, method: 'GET', url: '/v1/whoami' },
    reply: {},
    state: {},
    policyName: 'whoami',
    policy: { locks: {} },
    route: '/v1/whoami',
    mode: 'enforce',
  } as unknown as LockContext;
}

/** The lock's refusal, returned at once (GuardLock.check) or thrown / rejected (after its nonce claim). */
async function problemOf(run: () => unknown): Promise<ProblemException> {
  try {
    const r = await run();
    if (r instanceof ProblemException) return r;
  } catch (e) {
    if (e instanceof ProblemException) return e;
    throw e;
  }
  throw new Error('expected a ProblemException');
}

describe(SignatureLock.name, () => {
  it('should accept a request signed at the injected clock time and put app and tier in the state', async () => {
    const { clock, lock } = setUp();
    const c = ctx({ timestamp: clock.now() });
    await lock.check(c, REQUIRED);
    expect(c.state).toMatchObject({ appId: 'app-1', tier: 'pro' });
  });

  it('should judge the skew against the injected clock, and answer its time', async () => {
    const { clock, lock } = setUp();
    const c = ctx({ timestamp: clock.now() });
    clock.advance((SIGNATURE_SETTINGS_DEFAULTS.skewSeconds + 1) * 1000);
    const e = await problemOf(() => lock.check(c, REQUIRED));
    expect(e.getStatus()).toBe(401);
    expect(e.problem.error).toBe('clock_skew');
    expect(e.problem.server_time).toBe(clock.now());
  });

  it('should refuse a replayed nonce', async () => {
    const { clock, lock } = setUp();
    await lock.check(ctx({ timestamp: clock.now(), nonce: 'nonce-0123456789ab' }), REQUIRED);
    const e = await problemOf(() =>
      lock.check(ctx({ timestamp: clock.now(), nonce: 'nonce-0123456789ab' }), REQUIRED),
    );
    expect(e.problem.error).toBe('replayed_nonce');
  });

  it('should let an unsigned request through an optional route and refuse it on a required one', async () => {
    const { lock } = setUp();
    const c = ctx();
    expect(lock.check(c, OPTIONAL)).toBeUndefined();
    expect(c.state.appId).toBeUndefined();
    const e = await problemOf(() => lock.check(ctx(), REQUIRED));
    expect(e.problem.error).toBe('missing_header');
  });

  it('should count each refusal by code and scheme', async () => {
    const { clock, lock, metrics } = setUp();
    await problemOf(() => lock.check(ctx(), REQUIRED));
    const c = ctx({ timestamp: clock.now() - 3_600_000 });
    await problemOf(() => lock.check(c, REQUIRED));
    const text = await metrics.registry.getSingleMetricAsString('rampart_signature_failures_total');
    expect(text).toContain(
      'rampart_signature_failures_total{code="missing_header",scheme="none"} 1',
    );
    expect(text).toContain('rampart_signature_failures_total{code="clock_skew",scheme="hmac"} 1');
  });
});
