import { Injectable, Logger, OnApplicationBootstrap, RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants.js';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import { ConfigError } from '../config/config.error.js';
import { LockChain } from './lock-chain.service.js';
import { PROTECT_POLICY } from './protect.metadata.js';

export interface RouteInfo {
  method: string;
  /** Route template, e.g. `/v1/search/items/:id`. */
  template: string;
  /** Route policy name, or undefined for an unprotected route. */
  policy?: string;
}

/** Every route of the app with its template and policy, found once at boot. */
@Injectable()
export class RouteRegistry implements OnApplicationBootstrap {
  private readonly logger = new Logger('Routes');
  private readonly byHandler = new WeakMap<object, RouteInfo>();
  private readonly all: RouteInfo[] = [];

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly reflector: Reflector,
    private readonly chain: LockChain,
  ) {}

  onApplicationBootstrap(): void {
    for (const wrapper of this.discovery.getControllers()) {
      const instance = wrapper.instance as Record<string, unknown> | undefined;
      const type = wrapper.metatype as (new (...a: unknown[]) => unknown) | undefined;
      if (!instance || !type) continue;
      const base = pathsOf(Reflect.getMetadata(PATH_METADATA, type));
      const proto = Object.getPrototypeOf(instance) as object;
      for (const name of this.scanner.getAllMethodNames(proto)) {
        const handler = (proto as Record<string, unknown>)[name] as object;
        const sub = Reflect.getMetadata(PATH_METADATA, handler) as string | string[] | undefined;
        if (sub === undefined) continue;
        const method =
          RequestMethod[Reflect.getMetadata(METHOD_METADATA, handler) as number] ?? 'GET';
        const policy = this.reflector.getAllAndOverride<string | undefined>(PROTECT_POLICY, [
          handler as () => void,
          type,
        ]);
        const template = joinPath(base[0] ?? '', pathsOf(sub)[0] ?? '');
        const info: RouteInfo = { method, template, policy };
        this.byHandler.set(handler, info);
        this.all.push(info);
      }
    }
    const missing = this.all.filter((r) => r.policy !== undefined && !this.chain.policy(r.policy));
    if (missing.length > 0) {
      throw new ConfigError(
        missing.map(
          (r) => `${r.method} ${r.template} uses @Protect('${r.policy}') but no such policy exists`,
        ),
      );
    }
    this.chain.requirePolicies(new Set(this.all.flatMap((r) => (r.policy ? [r.policy] : []))));
    const open = this.all
      .filter((r) => r.policy === undefined)
      .map((r) => `${r.method} ${r.template}`);
    this.logger.log(`unprotected routes (no @Protect): ${open.length ? open.join(', ') : 'none'}`);
  }

  forHandler(handler: object): RouteInfo | undefined {
    return this.byHandler.get(handler);
  }

  routes(): readonly RouteInfo[] {
    return this.all;
  }
}

function pathsOf(v: unknown): string[] {
  if (Array.isArray(v)) return v.map(String);
  if (typeof v === 'string') return [v];
  return [];
}

function joinPath(a: string, b: string): string {
  const joined = `/${a}/${b}`.replace(/\/+/g, '/');
  return joined.length > 1 ? joined.replace(/\/$/, '') : joined;
}
