import { Inject, Injectable } from '@nestjs/common';
import type { GuardLock, GuardResult, LockContext } from '../../chain/lock.types.js';
import { CLOCK, type Clock } from '../../common/clock.js';
import type { LockSlice } from '../../config/policy.types.js';
import { AnyRequest, rawBody, rawUrl } from '../../http/http-context.js';
import type { ClaimHandoff } from '../../http/request-state.js';
import { AppRegistry } from './apps/app-registry.js';
import { NonceStore, NonceStoreUnavailableError } from './nonce/nonce-store.js';
import { outOfScope } from './session-keys/session-key-scope.js';
import { SESSION_KEY_STORE, SessionKeyStore } from './session-keys/session-key-store.js';
import { SignatureMetrics } from './signature.metrics.js';
import { fail } from './signature.problems.js';
import { SignatureOutcomes } from './signature-outcomes.js';
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
  private readonly out: SignatureOutcomes;

  constructor(
    private readonly apps: AppRegistry,
    @Inject(NonceStore) private readonly nonces: NonceStore,
    @InjectSignatureSettings() private readonly settings: SignatureSettings,
    metrics: SignatureMetrics,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(SESSION_KEY_STORE) private readonly sessions: SessionKeyStore,
    private readonly secretTokens: SecretTokenSources,
  ) {
    this.out = new SignatureOutcomes(metrics, clock);
  }

  validateSlice(slice: LockSlice, path: string): string[] {
    return validateSignatureSlice(slice, path, this.secretTokens.names());
  }

  /** A refusal decided at once is returned, not thrown (one throw fewer per forged request: GuardLock.check). */
  check(ctx: LockContext, slice: SignatureSlice): GuardResult {
    if (slice.secretToken !== undefined) {
      const source = this.secretTokens.get(slice.secretToken);
      // Validation refuses an unknown name; a source missing here refuses rather than opens.
      const failure = source
        ? checkSecretToken(ctx, source)
        : fail('bad_secret_token', 'secret-token', 'no secret token is configured');
      if (failure) return this.out.reject(failure, ctx);
      return;
    }
    const result = verifyRequest(requestView(ctx.req), this.apps, {
      now: this.clock.now(),
      defaultSkewSeconds: this.settings.skewSeconds,
    });
    if ('unsigned' in result) {
      if (slice.signed === 'optional') return; // anonymous: limited by IP / user downstream
      return this.out.reject(
        fail(
          'missing_header',
          'none',
          'this route requires a signed request (X-App-Id, X-Timestamp, X-Nonce, X-Signature, or RFC 9421 Signature-Input/Signature)',
        ),
        ctx,
      );
    }
    if (!result.ok) return this.out.reject(result, ctx);
    const { app, nonce, nonceTtlMs, scheme, session } = result;
    if (session && !session.claims.scope.includes(ctx.policyName))
      return this.out.reject(outOfScope(session.claims, ctx.policyName, scheme), ctx);
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
              (fresh) => this.out.claimed(fresh ? 'fresh' : 'replayed', ctx, app, scheme),
              (err: unknown) => this.out.storeFailed(err, ctx, scheme),
            );
          if (handoff.result === 'taken') return this.out.claimed('replayed', ctx, app, scheme);
          this.out.storeFailed(
            new NonceStoreUnavailableError('the fused claim failed'),
            ctx,
            scheme,
          );
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
      (found) => this.out.claimed(found, ctx, app, scheme, session),
      (err: unknown) => this.out.storeFailed(err, ctx, scheme),
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
