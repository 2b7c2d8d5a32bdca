/**
 * Small test locks that record every call, for tests of the chain itself.
 * Each rejects when the request asks it to (`x-test-reject: <lock name>`).
 */
import { Controller, Get, Injectable, Module, OnModuleInit } from '@nestjs/common';
import { LockChain } from '../../src/chain/lock-chain.service.js';
import type { GuardLock, InterceptorLock, LockContext } from '../../src/chain/lock.types.js';
import type { LockName } from '../../src/chain/lock-order.js';
import { Protect } from '../../src/chain/protect.decorator.js';
import { ProblemException } from '../../src/common/problem.exception.js';
import { header } from '../../src/http/http-context.js';

/** Calls in order, per request id. */
export const calls = new Map<string, string[]>();

function note(ctx: LockContext, what: string): void {
  const id = header(ctx.req, 'x-test-id') ?? 'none';
  calls.set(id, [...(calls.get(id) ?? []), what]);
}

function wantsReject(ctx: LockContext, name: string): boolean {
  return header(ctx.req, 'x-test-reject') === name;
}

function guardLock(name: LockName, status: number): GuardLock {
  return {
    name,
    stage: 'guard',
    validateSlice: () => [],
    check(ctx) {
      note(ctx, `${name}:${ctx.mode}`);
      if (wantsReject(ctx, name))
        throw new ProblemException(status, `test_${name}`, `rejected by test ${name}`);
    },
  };
}

function interceptorLock(name: LockName): InterceptorLock {
  return {
    name,
    stage: 'interceptor',
    validateSlice: () => [],
    async around(ctx, _slice, next) {
      note(ctx, `${name}:${ctx.mode}`);
      if (wantsReject(ctx, name) && ctx.mode === 'enforce') return { shortCircuitedBy: name };
      return next();
    },
  };
}

@Injectable()
class TestLocks implements OnModuleInit {
  constructor(private readonly chain: LockChain) {}
  onModuleInit(): void {
    this.chain.register(guardLock('signature', 401));
    this.chain.register(guardLock('rateLimit', 429));
    this.chain.register(interceptorLock('cacheShield'));
    this.chain.register(interceptorLock('circuitBreaker'));
  }
}

@Controller('test')
class TestController {
  @Get('protected')
  @Protect('test')
  protectedRoute(): { handler: true } {
    return { handler: true };
  }

  @Get('open')
  open(): { open: true } {
    return { open: true };
  }
}

/** Registers the four test locks and a `/test/protected` route under policy `test`. */
@Module({ controllers: [TestController], providers: [TestLocks] })
export class TestLocksModule {}
