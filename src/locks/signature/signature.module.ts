import { DynamicModule, Inject, Module, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { LockChain } from '../../chain/lock-chain.service.js';
import { CLOCK, type Clock } from '../../common/clock.js';
import { RAMPART_CONFIG } from '../../config/config.constants.js';
import { RedisService } from '../../redis/redis.service.js';
import { AppRegistry } from './apps/app-registry.js';
import { createAppRegistry } from './apps/app-registry.provider.js';
import { MemoryNonceStore } from './nonce/memory-nonce.store.js';
import { NonceStore } from './nonce/nonce-store.js';
import { RedisNonceStore } from './nonce/redis-nonce.store.js';
import { createSessionKeyStore } from './session-keys/session-key-store.provider.js';
import { SESSION_KEY_STORE } from './session-keys/session-key-store.js';
import {
  SecretTokenSourcesModule,
  SignatureFeatureModule,
  type SignatureFeature,
} from './secret-token/secret-tokens.js';
import { SignatureLock } from './signature.lock.js';
import { SignatureMetrics } from './signature.metrics.js';
import { SIGNATURE_SETTINGS, signatureSettings } from './signature.settings.js';
import type { SignatureSettings } from './signature.types.js';

/**
 * Lock 1 (request signatures). Registers the `signature` guard lock with the
 * chain; exports the AppRegistry for the admin API. Nonces live in Redis
 * when it is configured (fail closed when it is down), else in memory.
 */
@Module({
  imports: [SecretTokenSourcesModule],
  providers: [
    { provide: SIGNATURE_SETTINGS, useFactory: signatureSettings, inject: [RAMPART_CONFIG] },
    { provide: AppRegistry, useFactory: createAppRegistry, inject: [RAMPART_CONFIG, CLOCK] },
    {
      provide: NonceStore,
      useFactory: (redis: RedisService, settings: SignatureSettings, clock: Clock): NonceStore =>
        redis.enabled
          ? new RedisNonceStore(redis)
          : new MemoryNonceStore(clock, { maxEntries: settings.memoryNonceMaxEntries }),
      inject: [RedisService, SIGNATURE_SETTINGS, CLOCK],
    },
    {
      provide: SESSION_KEY_STORE,
      useFactory: createSessionKeyStore,
      inject: [RedisService, NonceStore, CLOCK, SIGNATURE_SETTINGS],
    },
    SignatureMetrics,
    SignatureLock,
  ],
  exports: [AppRegistry, SignatureLock, SESSION_KEY_STORE],
})
export class SignatureModule implements OnModuleInit, OnApplicationShutdown {
  /**
   * What a product plugs into the lock: named secret-token sources (a slice's
   * `secretToken: <name>`). Works whether or not the lock is installed.
   */
  static forFeature(feature: SignatureFeature): DynamicModule {
    return SignatureFeatureModule.register(feature);
  }

  constructor(
    private readonly chain: LockChain,
    private readonly lock: SignatureLock,
    @Inject(NonceStore) private readonly nonces: NonceStore,
  ) {}

  onModuleInit(): void {
    this.chain.register(this.lock);
  }

  onApplicationShutdown(): void {
    this.nonces.close?.();
  }
}
