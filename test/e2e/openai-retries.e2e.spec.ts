import { InternalServerError, RateLimitError } from 'openai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RampartConfig } from '../../src/config/config.types.js';
import { ADAPTERS, RunningApp, startApp } from '../support/app.js';
import { FakeOpenAI, startFakeOpenAI } from '../support/fake-openai.js';
import { Attempt, chatParams, openAiClient } from '../support/openai-sdk.js';
import { testApps } from '../support/signature-routes.js';

/** One token per app, refilled in 2 s: the second call in a row is refused with Retry-After. */
function tinyRateLimit(c: RampartConfig): RampartConfig {
  const inference = c.policies.inference!;
  const rateLimit = {
    mode: 'enforce' as const,
    failMode: 'local' as const,
    cost: 1,
    rules: [{ name: 'tiny', dimension: 'app', capacity: 1, rate: '30/min' }],
  };
  return {
    ...c,
    policies: {
      ...c.policies,
      inference: { ...inference, locks: { ...inference.locks, rateLimit } },
    },
  };
}

/** A breaker that opens at the first failure and probes again after 4 s. */
function touchyBreaker(c: RampartConfig): RampartConfig {
  const inference = c.policies.inference!;
  const circuitBreaker = {
    ...inference.locks.circuitBreaker,
    volumeThreshold: 1,
    errorThresholdPercentage: 50,
    resetTimeoutMs: 4_000,
    resetJitter: 0,
    halfOpenProbes: 1,
    rampPercents: [],
  };
  return {
    ...c,
    policies: {
      ...c.policies,
      inference: { ...inference, locks: { ...inference.locks, circuitBreaker } },
    },
  };
}

/** Every attempt carried its own nonce, and none was refused as a replay. */
function expectFreshSignatures(attempts: readonly Attempt[]): void {
  const nonces = attempts.map((a) => a.nonce);
  expect(nonces.every((n) => typeof n === 'string' && n.length >= 16)).toBe(true);
  expect(new Set(nonces).size).toBe(nonces.length);
  expect(attempts.filter((a) => a.code === 'replayed_nonce')).toEqual([]);
}

/**
 * The official SDK's own retries through Rampart: on 429 and 5xx it calls
 * fetch again, so every attempt is signed afresh by createSignedFetch, and
 * it waits as long as Retry-After says.
 */
describe.each(ADAPTERS)(
  'the official OpenAI SDK’s retries through Rampart (%s)',
  { concurrent: true },
  (adapter) => {
    const apps = testApps();
    const creds = { appId: apps.main.appId, secret: apps.main.secrets[0]! };
    let limited: RunningApp;
    let fake: FakeOpenAI;
    let proxy: RunningApp;

    beforeAll(async () => {
      fake = await startFakeOpenAI();
      limited = await startApp(
        { HTTP_ADAPTER: adapter, APPS_FILE: apps.file },
        { search: 'empty', config: tinyRateLimit },
      );
      proxy = await startApp(
        { HTTP_ADAPTER: adapter, APPS_FILE: apps.file, INFERENCE_UPSTREAM_URL: fake.url },
        { search: 'empty', config: touchyBreaker },
      );
    });
    afterEach(() => fake.reset());
    afterAll(async () => {
      await limited?.close();
      await proxy?.close();
      await fake?.close();
    });

    it.sequential(
      'should surface a 429 as RateLimitError with Rampart’s code and Retry-After',
      async () => {
        const { client } = openAiClient(limited, creds, { maxRetries: 0 });
        let err: unknown;
        // The bucket holds one token: one of the first calls in a row is refused (two unless the machine stalls 2 s).
        for (let i = 0; i < 3 && err === undefined; i++)
          err = await client.chat.completions.create(chatParams('hi')).then(
            () => undefined,
            (e: unknown) => e,
          );
        expect(err).toBeInstanceOf(RateLimitError);
        const e = err as RateLimitError;
        expect(e).toMatchObject({ status: 429, code: 'rate_limited', type: 'rate_limit_error' });
        expect(e.message).toMatch(/^429 Rate limit "inference.tiny" exceeded; retry in \d s\.$/);
        expect(Number(e.headers?.get('retry-after'))).toBeGreaterThanOrEqual(1);
      },
    );

    it.sequential(
      'should retry a 429 after Retry-After with a fresh signature, and succeed',
      async () => {
        const { client, attempts } = openAiClient(limited, creds);
        const retried = (): number =>
          attempts.findIndex((a, i) => a.status === 429 && attempts[i + 1]?.status === 200);
        for (let i = 0; i < 3 && retried() < 0; i++) {
          const c = await client.chat.completions.create(chatParams('hi'));
          expect(c.object).toBe('chat.completion');
        }
        const at = retried();
        expect(at).toBeGreaterThanOrEqual(0);
        const [refused, retry] = [attempts[at]!, attempts[at + 1]!];
        expect(refused.code).toBe('rate_limited');
        expect(retry.retryCount).toBe('1');
        // The SDK waited as long as Retry-After asked before it sent the retry.
        expect(retry.sentAt - refused.answeredAt).toBeGreaterThanOrEqual(
          Number(refused.retryAfter) * 1000 - 20,
        );
        expectFreshSignatures(attempts);
      },
    );

    it.sequential(
      'should retry a 5xx, then a 503 after its Retry-After, each signed afresh, and succeed',
      async () => {
        fake.setStatus(500);
        const { client, attempts } = openAiClient(proxy, creds, {
          // The upstream recovers as soon as the first failure opened the breaker.
          onAttempt: (a) => void (a.status === 502 && fake.reset()),
        });
        const c = await client.chat.completions.create(chatParams('hi'));
        expect(c.object).toBe('chat.completion');
        expect(attempts.map((a) => [a.status, a.code, a.retryCount])).toEqual([
          [502, 'upstream_error', '0'],
          [503, 'circuit_open', '1'],
          [200, undefined, '2'],
        ]);
        const [, open, probe] = attempts as [Attempt, Attempt, Attempt];
        expect(probe.sentAt - open.answeredAt).toBeGreaterThanOrEqual(
          Number(open.retryAfter) * 1000 - 20,
        );
        expectFreshSignatures(attempts);
      },
    );

    it.sequential('should raise Rampart’s code once the retries are used up', async () => {
      fake.setStatus(500);
      const { client, attempts } = openAiClient(proxy, creds, { maxRetries: 0 });
      const err = await client.chat.completions.create(chatParams('hi')).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(InternalServerError);
      // The probe of the test before closed the breaker again: this failure reached the upstream.
      expect(err).toMatchObject({ status: 502, code: 'upstream_error', type: 'server_error' });
      expect(attempts).toHaveLength(1);
    });
  },
);
