import { DynamicModule, Inject, Module } from '@nestjs/common';
import { RateLimitExtensions, type RateLimitFeature } from './rate-limit-extensions.js';

/** The one registry of an app (a static module: every importer shares its instance). */
@Module({ providers: [RateLimitExtensions], exports: [RateLimitExtensions] })
export class RateLimitExtensionsModule {}

const FEATURE = Symbol('RATE_LIMIT_FEATURE');

/**
 * One product's registrations (`RateLimitModule.forFeature`). Works with or
 * without the rate-limit lock installed: it needs only the registry.
 */
@Module({})
export class RateLimitFeatureModule {
  static register(feature: RateLimitFeature): DynamicModule {
    return {
      module: RateLimitFeatureModule,
      imports: [RateLimitExtensionsModule],
      providers: [{ provide: FEATURE, useValue: feature }],
    };
  }

  // Registered when the module is created, before any lifecycle hook: slices are validated later,
  // in LockChain.onApplicationBootstrap, with every product's names in place.
  constructor(extensions: RateLimitExtensions, @Inject(FEATURE) feature: RateLimitFeature) {
    extensions.register(feature);
  }
}
