import { RATE_LIMIT_BANS, type BanAdminPort } from '../locks/rate-limit/bans/ban.types.js';
import { Inject, Injectable, Optional, Type } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { AppRegistry } from '../locks/signature/apps/app-registry.js';
import { BLOOM_ADMIN, BloomAdminPort } from '../locks/cache-shield/cache-shield.admin.js';
import { BREAKER_ADMIN, BreakerAdminPort } from '../locks/circuit-breaker/circuit-breaker.admin.js';
import { lockNotInstalled } from './admin-problems.js';
import {
  RATE_LIMIT_ADMIN,
  USAGE_ADMIN,
  type RateLimitAdminPort,
  type UsageAdminPort,
} from '../locks/rate-limit/rate-limit.admin.js';
import {
  SESSION_KEY_STORE,
  type SessionKeyStore,
} from '../locks/signature/session-keys/session-key-store.js';

/**
 * Finds the parts other lock modules provide for the admin API, wherever
 * they are declared: the signature lock's AppRegistry and the cache-shield
 * and circuit-breaker ports. Absent parts make their endpoints answer 404
 * `lock_not_installed`; the admin API works with any set of locks.
 */
@Injectable()
export class InstalledParts {
  private readonly found = new Map<unknown, unknown>();

  constructor(
    private readonly moduleRef: ModuleRef,
    @Optional() @Inject(BLOOM_ADMIN) bloom?: BloomAdminPort,
    @Optional() @Inject(BREAKER_ADMIN) breaker?: BreakerAdminPort,
  ) {
    if (bloom) this.found.set(BLOOM_ADMIN, bloom);
    if (breaker) this.found.set(BREAKER_ADMIN, breaker);
  }

  appRegistry(): AppRegistry | undefined {
    return this.find(AppRegistry);
  }

  /** The signature lock's session key deny set. */
  sessionKeys(): SessionKeyStore | undefined {
    return this.find<SessionKeyStore>(SESSION_KEY_STORE);
  }

  bloom(): BloomAdminPort | undefined {
    return this.find<BloomAdminPort>(BLOOM_ADMIN);
  }

  breaker(): BreakerAdminPort | undefined {
    return this.find<BreakerAdminPort>(BREAKER_ADMIN);
  }

  /** The AppRegistry, or a 404 `lock_not_installed` naming the signature lock. */
  requireAppRegistry(): AppRegistry {
    return this.appRegistry() ?? throwNotInstalled('signature');
  }

  requireBloom(): BloomAdminPort {
    return this.bloom() ?? throwNotInstalled('cacheShield');
  }

  /** The rate-limit lock's port (risk subjects, load level). */
  rateLimit(): RateLimitAdminPort | undefined {
    return this.find<RateLimitAdminPort>(RATE_LIMIT_ADMIN);
  }

  requireRateLimit(): RateLimitAdminPort {
    return this.rateLimit() ?? throwNotInstalled('rateLimit');
  }

  /** The rate-limit lock's bans port (undefined: the lock is not installed). */
  bans(): BanAdminPort | undefined {
    return this.find<BanAdminPort>(RATE_LIMIT_BANS);
  }

  requireBans(): BanAdminPort {
    return this.bans() ?? throwNotInstalled('rateLimit');
  }

  /** The rate-limit lock's usage port, or a 404 `lock_not_installed`. */
  requireUsage(): UsageAdminPort {
    return this.find<UsageAdminPort>(USAGE_ADMIN) ?? throwNotInstalled('rateLimit');
  }

  requireBreaker(): BreakerAdminPort {
    return this.breaker() ?? throwNotInstalled('circuitBreaker');
  }

  private find<T>(token: Type<T> | symbol): T | undefined {
    if (this.found.has(token)) return this.found.get(token) as T;
    try {
      const part = this.moduleRef.get<T>(token, { strict: false });
      this.found.set(token, part);
      return part;
    } catch {
      return undefined;
    }
  }
}

function throwNotInstalled(lock: string): never {
  throw lockNotInstalled(lock);
}
