import { Inject, Injectable, Logger } from '@nestjs/common';
import type { GuardLock, LockContext } from '../../chain/lock.types.js';
import { CLOCK, type Clock } from '../../common/clock.js';
import type { ProblemException } from '../../common/problem.exception.js';
import type { LockSlice } from '../../config/policy.types.js';
import { AnyRequest, rawBody, rawUrl } from '../../http/http-context.js';
import type { ClaimHandoff } from '../../http/request-state.js';
import { AppRegistry } from './apps/app-registry.js';
import { BadSignatureLog } from './bad-signature-log.js';
import { NonceStore, NonceStoreUnavailableError } from './nonce/nonce-store.js';
import { outOfScope } from './session-keys/session-key-scope.js';
import { SESSION_KEY_STORE, SessionKeyStore } from './session-keys/session-key-store.js';
import { SignatureMetrics } from './signature.metrics.js';
import { SignatureFailure, fail, signatureProblem } from './signature.problems.js';
import { InjectSignatureSettings } from './signature.settings.js';
import type { SignatureSettings, SignatureSlice } from './signature.types.js';
import { validateSignatureSlice } from './signature.validate.js';
import { checkSecretToken } from './secret-token/check-secret-token.js';
import { SecretTokenSources } from './secret-token/secret-tokens.js';
import { verifyRequest } from './verify-request.js';
import type { SignedRequestView } from './verify.types.js';

/**
 * Lock 1: verifies the request signature (Rampart-HMAC-SHA256 or RFC 9421),
 * then claims the nonce — state last, only after the MAC matched. On
 * success the verified app id and tier go into the request state.
 */
@Injectable()
export class SignatureLock implements GuardLock<SignatureSlice> {
  readonly name = 'signature' as const;
  readonly stage = 'guard' as const;
  private readonly logger = new Logger('SignatureLock');
  private lastOutageLog = 0;
  private readonly badSignatures: BadSignatureLog;

  constructor(
    private readonly apps: AppRegistry,
    @Inject(NonceStore) private readonly nonces: NonceStore,
    @InjectSignatureSettings() private readonly settings: SignatureSettings,
    private readonly metrics: SignatureMetrics,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(SESSION_KEY_STORE) private readonly sessions: SessionKeyStore,
    private readonly secretTokens: SecretTokenSources,
  ) {
    this.badSignatures = new BadSignatureLog(clock, this.logger);
  }

  validateSlice(slice: LockSlice, path: string): string[] {
    return validateSignatureSlice(slice, path, this.secretTokens.names());
  }

  check(ctx: LockContext, slice: SignatureSlice): void | Promise<void> {
    if (slice.secretToken !== undefined) {
      const source = this.secretTokens.get(slice.secretToken);
      // Validation refuses an unknown name; a source missing here refuses rather than opens.
      const failure = source
        ? checkSecretToken(ctx, source)
        : fail('bad_secret_token', 'secret-token', 'no secret token is configured');
      if (failure) throw this.reject(failure, ctx);
      return;
    }
    const result = verifyRequest(requestView(ctx.req), this.apps, {
      now: this.clock.now(),
      defaultSkewSeconds: this.settings.skewSeconds,
    });
    if ('unsigned' in result) {
      if (slice.signed === 'optional') return; // anonymous: limited by IP / user downstream
      throw this.reject(
        fail(
          'missing_header',
          'none',
          'this route requires a signed request (X-App-Id, X-Timestamp, X-Nonce, X-Signature, or RFC 9421 Signature-Input/Signature)',
        ),
        ctx,
      );
    }
    if (!result.ok) throw this.reject(result, ctx);
    const { app, nonce, nonceTtlMs, scheme, session } = result;
    if (session && !session.claims.scope.includes(ctx.policyName))
      throw this.reject(outOfScope(session.claims, ctx.policyName, scheme), ctx);
    if (!session && this.handsOff(ctx, slice)) {
      // One round trip: a later guard (the rate limiter) makes the claim in its own script.
      const key = this.nonces.key!(app.id, nonce);
      const handoff: ClaimHandoff = {
        owner: this.name,
        key,
        ttlMs: nonceTtlMs,
        settle: () => {
          if (handoff.result === 'fresh') return;
          if (handoff.result === undefined)
            return this.nonces.claim(app.id, nonce, nonceTtlMs).then(
              (fresh) => this.claimed(fresh ? 'fresh' : 'replayed', ctx, app, scheme),
              (err: unknown) => this.storeFailed(err, ctx, scheme),
            );
          if (handoff.result === 'taken') return this.claimed('replayed', ctx, app, scheme);
          this.storeFailed(new NonceStoreUnavailableError('the fused claim failed'), ctx, scheme);
        },
      };
      ctx.state.claimHandoff = handoff;
      // The later guards see the app (its rules); a refused claim takes it back (settle).
      ctx.state.appId = app.id;
      ctx.state.tier = app.tier;
      return;
    }
    const claim = session
      ? this.sessions.claim(app.id, nonce, nonceTtlMs, session.id)
      : this.nonces.claim(app.id, nonce, nonceTtlMs).then((f) => (f ? 'fresh' : 'replayed'));
    return claim.then(
      (found) => this.claimed(found, ctx, app, scheme, session),
      (err: unknown) => this.storeFailed(err, ctx, scheme),
    );
  }

  /**
   * Whether this request's nonce claim goes to a later guard's store call: only in enforce
   * mode without `onFailure: defer` (its refusal is then the same whenever it is raised),
   * with the Redis nonce store (its key), and when no claim is pending already.
   */
  private handsOff(ctx: LockContext, slice: SignatureSlice): boolean {
    return (
      this.nonces.key !== undefined &&
      ctx.mode === 'enforce' &&
      slice.onFailure !== 'defer' &&
      ctx.state.claimHandoff === undefined
    );
  }

  /** The nonce was claimed (or found claimed): accept the request, or refuse it. */
  private claimed(
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
  private storeFailed(err: unknown, ctx: LockContext, scheme: SignatureFailure['scheme']): never {
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

  private reject(f: SignatureFailure, ctx: LockContext): ProblemException {
    this.metrics.failure(f);
    if (f.benign) ctx.state.benignRefusal = true;
    // At most one line per app per second (a flood of forged requests must not flood the log).
    if (f.code === 'bad_signature')
      this.badSignatures.record(f, ctx.policyName, ctx.state.requestId);
    return signatureProblem(f);
  }
}

function requestView(req: AnyRequest): SignedRequestView {
  const socket = (req.socket ?? req.raw?.socket) as { encrypted?: boolean } | undefined;
  return {
    method: req.method,
    target: rawUrl(req),
    headers: req.headers,
    body: rawBody(req),
    scheme: socket?.encrypted ? 'https' : 'http',
  };
}
