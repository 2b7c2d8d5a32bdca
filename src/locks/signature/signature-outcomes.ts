import { Logger } from '@nestjs/common';
import type { LockContext } from '../../chain/lock.types.js';
import type { Clock } from '../../common/clock.js';
import type { ProblemException } from '../../common/problem.exception.js';
import { BadSignatureLog } from './bad-signature-log.js';
import { NonceStoreUnavailableError } from './nonce/nonce-store.js';
import { SignatureMetrics } from './signature.metrics.js';
import { SignatureFailure, fail, signatureProblem } from './signature.problems.js';

/**
 * What the signature lock does once it has a verdict: accept a claimed nonce into the request
 * state, or refuse (counted, logged within bounds, as a problem). Plain class: the lock makes one.
 */
export class SignatureOutcomes {
  private readonly logger = new Logger('SignatureLock');
  private lastOutageLog = 0;
  private readonly badSignatures: BadSignatureLog;

  constructor(
    private readonly metrics: SignatureMetrics,
    private readonly clock: Clock,
  ) {
    this.badSignatures = new BadSignatureLog(clock, this.logger);
  }

  /** The nonce was claimed (or found claimed): accept the request, or refuse it. */
  claimed(
    found: 'fresh' | 'replayed' | 'revoked',
    ctx: LockContext,
    app: { id: string; tier: string },
    scheme: SignatureFailure['scheme'],
    session?: { id: string; claims: { user: string } },
  ): void {
    if (found !== 'fresh') {
      // A claim handed off set the app early (for the later guards' rules): a refusal takes it back.
      ctx.state.appId = ctx.state.tier = undefined;
      throw this.reject(
        found === 'revoked'
          ? fail('key_revoked', scheme, 'this session key was revoked', { appId: app.id })
          : fail('replayed_nonce', scheme, 'this nonce was already used', { appId: app.id }),
        ctx,
      );
    }
    ctx.state.appId = app.id;
    ctx.state.tier = app.tier;
    if (session) {
      // Verified: the key names its user; a user header cannot change it.
      ctx.state.userId = session.claims.user;
      ctx.state.sessionKey = session.id;
    }
  }

  /** The nonce store could not decide: fail closed (503), logged once per 5 s. */
  storeFailed(err: unknown, ctx: LockContext, scheme: SignatureFailure['scheme']): never {
    if (!(err instanceof NonceStoreUnavailableError)) throw err;
    ctx.state.appId = ctx.state.tier = undefined;
    const now = this.clock.now();
    if (now - this.lastOutageLog > 5_000) {
      // Once per 5 s, not once per request: an outage must not flood the log.
      this.lastOutageLog = now;
      this.logger.warn({
        msg: 'nonce store unavailable: refusing signed requests (fail closed)',
        reason: err.message,
      });
    }
    throw this.reject(
      fail('nonce_store_unavailable', scheme, 'replay protection is unavailable'),
      ctx,
    );
  }

  reject(f: SignatureFailure, ctx: LockContext): ProblemException {
    this.metrics.failure(f);
    if (f.benign) ctx.state.benignRefusal = true;
    // At most one line per app per second (a flood of forged requests must not flood the log).
    if (f.code === 'bad_signature')
      this.badSignatures.record(f, ctx.policyName, ctx.state.requestId);
    return signatureProblem(f);
  }
}
