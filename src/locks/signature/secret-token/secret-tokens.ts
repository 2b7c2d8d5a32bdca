import { DynamicModule, Inject, Injectable, Module } from '@nestjs/common';
import type { LockContext } from '../../../chain/lock.types.js';

/** What a secret-token source sees of the request. */
export type SecretTokenContext = Pick<LockContext, 'req' | 'state' | 'route'>;

/**
 * A per-route shared secret sent in a header (e.g. a webhook's secret token):
 * `secrets` answers the accepted values for this request (current first, then
 * the previous one during a rotation), or undefined when the request names
 * nothing that has one (unknown sender, wrong path): refused either way.
 */
export interface SecretTokenSource {
  /** Header carrying the token, lower case. */
  header: string;
  secrets(ctx: SecretTokenContext): readonly string[] | undefined;
}

/** What a product plugs into the signature lock: `SignatureModule.forFeature(feature)`. */
export interface SignatureFeature {
  /** Named secret-token sources, usable as a slice's `secretToken: <name>`. Names match `[a-z][a-z0-9-]*`. */
  secretTokens?: Record<string, SecretTokenSource>;
}

const NAME = /^[a-z][a-z0-9-]{0,39}$/;

/** The sources the products registered; read when slices are validated and per request by name. */
@Injectable()
export class SecretTokenSources {
  private readonly sources = new Map<string, SecretTokenSource>();

  register(feature: SignatureFeature): void {
    for (const [name, source] of Object.entries(feature.secretTokens ?? {})) {
      if (!NAME.test(name))
        throw new Error(
          `SignatureModule.forFeature: secret token "${name}" must match [a-z][a-z0-9-]*`,
        );
      if (this.sources.has(name))
        throw new Error(`SignatureModule.forFeature: secret token "${name}" is registered twice`);
      this.sources.set(name, { header: source.header.toLowerCase(), secrets: source.secrets });
    }
  }

  names(): string[] {
    return [...this.sources.keys()];
  }

  get(name: string): SecretTokenSource | undefined {
    return this.sources.get(name);
  }
}

/** The one registry of an app (a static module: every importer shares its instance). */
@Module({ providers: [SecretTokenSources], exports: [SecretTokenSources] })
export class SecretTokenSourcesModule {}

const FEATURE = Symbol('SIGNATURE_FEATURE');

/** One product's registrations; works with or without the signature lock installed. */
@Module({})
export class SignatureFeatureModule {
  static register(feature: SignatureFeature): DynamicModule {
    return {
      module: SignatureFeatureModule,
      imports: [SecretTokenSourcesModule],
      providers: [{ provide: FEATURE, useValue: feature }],
    };
  }

  constructor(sources: SecretTokenSources, @Inject(FEATURE) feature: SignatureFeature) {
    sources.register(feature);
  }
}
