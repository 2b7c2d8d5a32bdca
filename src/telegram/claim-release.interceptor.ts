import {
  CallHandler,
  ExecutionContext,
  HttpException,
  Injectable,
  NestInterceptor,
  OnModuleInit,
} from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { Observable, catchError, from, mergeMap, throwError } from 'rxjs';
import { type AnyRequest, requestState } from '../http/http-context.js';
import { RateLimitClaims } from '../locks/rate-limit/limiter/rate-limit-claims.js';
import { TelegramBots } from './telegram-bots.js';
import { UPDATE_CLAIM, updateClaimId } from './telegram-lock-features.js';

/**
 * Forward mode's no-loss rule: an update Rampart answers non-2xx (the bot
 * backend failed, its breaker is open) will be redelivered by Telegram, so
 * its dedup claim is given back first — else the redelivery would be dropped
 * as a duplicate. Wraps the lock chain's interceptors (breaker refusals
 * included); guard refusals come before any claim.
 *
 * An allowed update was charged: its claim keeps that charge, so the
 * redelivery re-enters without being charged again (docs/telegram.md#no-loss).
 */
@Injectable()
export class ClaimReleaseInterceptor implements NestInterceptor, OnModuleInit {
  private claims?: RateLimitClaims;

  constructor(
    private readonly bots: TelegramBots,
    private readonly modules: ModuleRef,
  ) {}

  onModuleInit(): void {
    // The rate-limit lock may not be installed: found where it is, never required.
    try {
      this.claims = this.modules.get(RateLimitClaims, { strict: false });
    } catch {
      this.claims = undefined;
    }
  }

  intercept(ctx: ExecutionContext, next: CallHandler): Observable<unknown> {
    const req = ctx.switchToHttp().getRequest<AnyRequest>();
    return next.handle().pipe(
      catchError((err: unknown) => {
        const status = err instanceof HttpException ? err.getStatus() : 500;
        const bot = this.bots.bot(req);
        const u = this.bots.update(req);
        const state = requestState(req);
        if (status < 500 || !bot || !u || !this.claims || state.duplicate)
          return throwError(() => err);
        const charged = state.limited === undefined;
        return from(
          this.claims.release(UPDATE_CLAIM, updateClaimId(bot.id, u.updateId), { charged }),
        ).pipe(mergeMap(() => throwError(() => err)));
      }),
    );
  }
}
