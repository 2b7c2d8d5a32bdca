import { Injectable, OnModuleInit } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { INFERENCE_BACKEND, type InferenceBackend } from '../inference/inference-backend.js';
import { BloomService } from '../locks/cache-shield/bloom/bloom.service.js';
import { BreakerRegistry } from '../locks/circuit-breaker/breaker/breaker-registry.service.js';

/** The breaker refused the call (open, half-open and full, forced open, busy). */
export class BackendBusyError extends Error {
  constructor(
    readonly backend: string,
    readonly retryAfterMs: number,
  ) {
    super(`${backend} is refusing calls`);
    this.name = 'BackendBusyError';
  }
}

/**
 * What the builtin bot calls, found where it is installed and never imported
 * as a module: the cache shield's Bloom filters, lock 4's breakers, the
 * inference backend. `guarded()` runs one backend call through the breaker of
 * `backend` (the same breaker the HTTP routes use): refused → BackendBusyError;
 * admitted → counted, with the breaker's timeout aborting `signal`.
 */
@Injectable()
export class BuiltinBackends implements OnModuleInit {
  bloom?: BloomService;
  inference?: InferenceBackend;
  private breakers?: BreakerRegistry;

  constructor(private readonly modules: ModuleRef) {}

  onModuleInit(): void {
    this.bloom = this.find<BloomService>(BloomService);
    this.breakers = this.find<BreakerRegistry>(BreakerRegistry);
    this.inference = this.find<InferenceBackend>(INFERENCE_BACKEND);
  }

  async guarded<T>(backend: string, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const ctl = new AbortController();
    const breaker = this.breakers?.get(backend);
    if (!breaker) return work(ctl.signal);
    const ticket = breaker.admit();
    if (!ticket.admit) throw new BackendBusyError(backend, ticket.retryAfterMs);
    let called = false;
    const { verdict } = breaker.guard(
      ticket,
      () => {
        called = true;
        return work(ctl.signal);
      },
      {
        abortOnTimeout: true,
        committed: () => false,
        abort: (r) => ctl.abort(r),
        backendCalled: () => called,
      },
    );
    return verdict;
  }

  private find<T>(token: unknown): T | undefined {
    try {
      return this.modules.get(token as never, { strict: false }) as T;
    } catch {
      return undefined;
    }
  }
}
