import { describe, expect, it, vi } from 'vitest';
import type { Counter } from 'prom-client';
import { ManualClock } from '../../common/clock.js';
import type { ProblemException } from '../../common/problem.exception.js';
import type { BreakerRegistry } from '../../locks/circuit-breaker/breaker/breaker-registry.service.js';
import type { ChatCompletionRequestDto } from '../dto/chat-completion-request.dto.js';
import type { InferenceBackend, InferenceCall } from '../inference-backend.js';
import { ModelRouterBackend } from './model-router.backend.js';
import type { UpstreamRoute } from './model-routes.types.js';

const route = (name: string): UpstreamRoute => ({
  name,
  url: 'http://127.0.0.1:9/v1', // never called: every breaker refuses
  model: 'm',
  weight: 1,
  priority: 0,
  timeoutMs: 1_000,
  backend: `inference-upstream-${name}`,
});

function router(
  admit: (tenant: unknown) => unknown,
  fallback: Partial<InferenceBackend> = {},
  wait?: { maxWaitMs: number; admitWaiting: (tenant: unknown) => Promise<unknown> },
) {
  const registry = {
    get: () => ({ admit, options: { maxWaitMs: wait?.maxWaitMs ?? 0 }, ...wait }),
  } as unknown as BreakerRegistry;
  const inc = vi.fn();
  const backend = new ModelRouterBackend(
    new Map([['chat', [route('a'), route('b')]]]),
    fallback as InferenceBackend,
    {
      clock: new ManualClock(),
      breakers: () => registry,
      mode: () => 'enforce',
      fallbacks: { inc } as unknown as Counter<'model' | 'upstream' | 'reason'>,
    },
  );
  return { backend, inc };
}

const body = (model: string) => ({ model, messages: [] }) as unknown as ChatCompletionRequestDto;

describe(ModelRouterBackend.name, () => {
  it("should ask each upstream's bulkhead for the calling app, and answer 503 without counting against the route when all refuse", async () => {
    const admit = vi.fn(() => ({ admit: false, reason: 'busy', retryAfterMs: 2_000 }));
    const { backend, inc } = router(admit);
    const noBackendCalled = vi.fn();
    const call = {
      signal: new AbortController().signal,
      clientGone: new AbortController().signal,
      tenant: { id: 'app-x', tier: 'pro' },
      noBackendCalled,
    } satisfies InferenceCall;
    const err = (await backend
      .complete(body('chat'), call)
      .catch((e: unknown) => e)) as ProblemException;
    expect(admit).toHaveBeenCalledTimes(2);
    expect(admit).toHaveBeenCalledWith({ id: 'app-x', tier: 'pro' });
    expect(err.problem).toMatchObject({ error: 'backend_busy', status: 503 });
    expect(err.headers['Retry-After']).toBe('2');
    expect(noBackendCalled).toHaveBeenCalledOnce();
    expect(inc).toHaveBeenCalledWith({ model: 'chat', upstream: 'a', reason: 'busy' });
    await backend.close();
  });

  it('should wait on every full upstream when none is left, and answer where the call stood when the wait refused', async () => {
    const admit = vi.fn(() => ({ admit: false, reason: 'busy', retryAfterMs: 1_000 }));
    const queue = { why: 'app_full', length: 16, position: 17 };
    const admitWaiting = vi.fn(() =>
      Promise.resolve({ admit: false, reason: 'busy', retryAfterMs: 5_000, queue }),
    );
    const { backend } = router(admit, {}, { maxWaitMs: 5_000, admitWaiting });
    const noBackendCalled = vi.fn();
    const call = {
      signal: new AbortController().signal,
      clientGone: new AbortController().signal,
      tenant: { id: 'app-x' },
      noBackendCalled,
    } satisfies InferenceCall;
    const err = (await backend
      .complete(body('chat'), call)
      .catch((e: unknown) => e)) as ProblemException;
    expect(admitWaiting).toHaveBeenCalledTimes(2); // in both upstreams' queues at once
    expect(admitWaiting).toHaveBeenCalledWith({ id: 'app-x' }, expect.any(AbortSignal));
    expect(err.problem).toMatchObject({ error: 'backend_busy', status: 503, queue });
    expect(err.headers['Retry-After']).toBe('5');
    expect(noBackendCalled).toHaveBeenCalledOnce();
    await backend.close();
  });

  it('should send a model that is no alias to the fallback backend, untouched by any upstream', async () => {
    const admit = vi.fn();
    const complete = vi.fn(() => Promise.resolve({ id: 'x' }));
    const { backend } = router(admit, { complete } as unknown as Partial<InferenceBackend>);
    const call = { signal: new AbortController().signal, clientGone: new AbortController().signal };
    await backend.complete(body('a'), call);
    expect(complete).toHaveBeenCalledOnce();
    expect(admit).not.toHaveBeenCalled();
    expect((await backend.models()).data.map((m) => m.id)).toEqual(['chat']);
    await backend.close();
  });
});
