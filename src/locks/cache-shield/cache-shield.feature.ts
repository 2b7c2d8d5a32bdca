import { DynamicModule, FactoryProvider, Module, ModuleMetadata } from '@nestjs/common';
import { CacheShieldRegistry, type CacheShieldFeature } from './cache-shield.registry.js';

/** `CacheShieldModule.forFeatureAsync`: a feature built from the product's own providers. */
export interface CacheShieldFeatureAsyncOptions {
  /** Modules whose exports `inject` needs (global modules need not be listed). */
  imports?: ModuleMetadata['imports'];
  /** Tokens passed to `useFactory`, in order. */
  inject?: FactoryProvider['inject'];
  useFactory(...deps: never[]): CacheShieldFeature | Promise<CacheShieldFeature>;
}

/**
 * The module a product imports to plug into the shield. Its one provider
 * registers the feature in the lock's registry while the app's providers are
 * created (before any module init), so the lock's slice validation at boot
 * already knows every key source. Without the shield installed it does
 * nothing.
 */
@Module({})
export class CacheShieldFeatureModule {
  static register(options: CacheShieldFeatureAsyncOptions): DynamicModule {
    const provider: FactoryProvider = {
      // One token per feature: several products may each register one.
      provide: Symbol('CACHE_SHIELD_FEATURE'),
      inject: [{ token: CacheShieldRegistry, optional: true }, ...(options.inject ?? [])],
      useFactory: async (registry: CacheShieldRegistry | undefined, ...deps: never[]) => {
        const feature = await options.useFactory(...deps);
        registry?.register(feature);
        return feature;
      },
    };
    return {
      module: CacheShieldFeatureModule,
      imports: options.imports ?? [],
      providers: [provider],
    };
  }
}
