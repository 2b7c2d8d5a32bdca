import { NodeHealthSource } from './load/health-source.js';
import { Module } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import type { Pacer } from './limiter/pacer.js';
import { describe, expect, it } from 'vitest';
import { RateLimitExtensions, type SubjectExtractor } from './extensions/rate-limit-extensions.js';
import type { RateLimiter } from './limiter/rate-limiter.service.js';
import { RateLimitLock } from './rate-limit.lock.js';
import type { BanCheck } from './bans/ban-check.js';
import { RateLimitModule } from './rate-limit.module.js';

const chat: SubjectExtractor = () => ({ value: '42', personal: true });

describe(RateLimitModule.name, () => {
  it('should collect every forFeature of an app in one registry, without the lock installed', async () => {
    @Module({ imports: [RateLimitModule.forFeature({ costs: { tokens: () => 3 } })] })
    class ProductA {}
    @Module({
      imports: [RateLimitModule.forFeature({ costs: { pages: () => 1 }, subjects: { chat } })],
    })
    class ProductB {}
    const app = await Test.createTestingModule({ imports: [ProductA, ProductB] }).compile();
    const ext = app.get(RateLimitExtensions);
    expect(ext.costNames().sort()).toEqual(['pages', 'tokens']);
    expect(ext.cost('tokens')?.({} as never)).toBe(3);
    expect(ext.subject('chat')).toBe(chat);
    await app.close();
  });

  it('should let a slice use exactly the registered cost names, listed in the problem', () => {
    const ext = new RateLimitExtensions();
    const lock = new RateLimitLock(
      {} as RateLimiter,
      ext,
      new NodeHealthSource(),
      {} as BanCheck,
      {} as Pacer,
    );
    const slice = {
      mode: 'enforce' as const,
      cost: 'inference',
      rules: [{ name: 'r', dimension: 'ip', capacity: 1, rate: 1 }],
    };
    // Without the inference module, `cost: inference` is a problem (the app still boots to say so).
    expect(lock.validateSlice(slice, 'p')).toEqual([
      'p.cost: must be an integer ≥ 1 (no cost function is registered)',
    ]);
    ext.register({ costs: { inference: () => 1, tokens: () => 1 } });
    expect(lock.validateSlice(slice, 'p')).toEqual([]);
    expect(lock.validateSlice({ ...slice, cost: 'pages' }, 'p')).toEqual([
      'p.cost: must be an integer ≥ 1 or one of inference, tokens',
    ]);
  });
});
