/**
 * The official OpenAI SDK through a 429 `token_budget` (docs/rate-limit.md#token-rules), both adapters, against the
 * fake upstream: a budget that refills within seconds is waited for (Retry-After) and the retry succeeds; a budget
 * spent for days says `x-should-retry: false` and the SDK does not retry. Allowed answers and refusals carry the
 * token rule in the IETF `RateLimit` / `RateLimit-Policy` fields next to OpenAI's `x-ratelimit-*-tokens`.
 */
import { RateLimitError } from 'openai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RampartConfig } from '../../src/config/config.types.js';
import type { RuleConfig } from '../../src/locks/rate-limit/rate-limit.types.js';
import { ADAPTERS, RunningApp, startApp } from '../support/app.js';
import { FakeOpenAI, startFakeOpenAI } from '../support/fake-openai.js';
import { chatParams, openAiClient } from '../support/openai-sdk.js';
import { testApps } from '../support/signature-routes.js';

/** A budget that holds one call of max_tokens 100 (charged 5 + 100 by the fake), not two. */
const BUDGET = 150;
const MAX_TOKENS = 100;

/** The shipped inference policy with one token rule per app and nothing else. */
function oneTokenRule(name: string, window: string): (c: RampartConfig) => RampartConfig {
  return (c) => {
    const inference = c.policies.inference!;
    const rl = inference.locks.rateLimit as unknown as { mode: 'enforce'; rules: RuleConfig[] };
    const rules: RuleConfig[] = [
      { name, dimension: 'app', algorithm: 'tokens', capacity: BUDGET, window },
    ];
    return {
      ...c,
      policies: {
        ...c.policies,
        inference: {
          ...inference,
          locks: {
            ...inference.locks,
            rateLimit: { ...rl, tokens: 'inference', tiers: {}, degrade: undefined, rules },
          },
        },
      },
    };
  };
}

describe.each(ADAPTERS)('the official OpenAI SDK through a token_budget 429 (%s)', (adapter) => {
  const apps = testApps();
  const creds = { appId: apps.main.appId, secret: apps.main.secrets[0]! };
  let fake: FakeOpenAI;
  let refill: RunningApp;
  let daily: RunningApp;

  beforeAll(async () => {
    fake = await startFakeOpenAI();
    const env = { HTTP_ADAPTER: adapter, APPS_FILE: apps.file, INFERENCE_UPSTREAM_URL: fake.url };
    // A 2 s window: a refused call may run again within 2 s. A 7 d window: its end is days away.
    refill = await startApp(env, { search: 'empty', config: oneTokenRule('refill-tokens', '2s') });
    daily = await startApp(env, { search: 'empty', config: oneTokenRule('week-tokens', '7d') });
  });
  afterEach(() => fake.reset());
  afterAll(async () => {
    await refill?.close();
    await daily?.close();
    await fake?.close();
  });

  it('should retry a token_budget 429 after its short Retry-After, once the budget refilled', async () => {
    fake.setUsage({ completion: 'max_tokens' });
    const { client, attempts } = openAiClient(refill, creds);
    const retried = (): number =>
      attempts.findIndex((a, i) => a.status === 429 && attempts[i + 1]?.status === 200);
    const answers = [];
    // Two calls in a row: the second does not fit until the window ends (unless the first ended it: go again).
    for (let i = 0; i < 4 && retried() < 0; i++) {
      const { data, response } = await client.chat.completions
        .create({ ...chatParams('hi'), max_tokens: MAX_TOKENS })
        .withResponse();
      expect(data.object).toBe('chat.completion');
      answers.push(response);
    }
    const at = retried();
    expect(at).toBeGreaterThanOrEqual(0);
    const [refused, retry] = [attempts[at]!, attempts[at + 1]!];
    expect(refused.code).toBe('token_budget');
    expect(Number(refused.retryAfter)).toBeGreaterThanOrEqual(1);
    expect(Number(refused.retryAfter)).toBeLessThanOrEqual(2);
    expect(retry.retryCount).toBe('1');
    // An allowed answer names the token rule in the IETF fields and in OpenAI's headers.
    const ok = answers[0]!.headers;
    expect(ok.get('ratelimit-policy')).toBe(`"inference.refill-tokens";q=${BUDGET};w=2`);
    expect(ok.get('ratelimit')).toMatch(/^"inference\.refill-tokens";r=\d+;t=[0-2]$/);
    const left = Number(/;r=(\d+)/.exec(ok.get('ratelimit') ?? '')?.[1]);
    expect(left).toBe(Number(ok.get('x-ratelimit-remaining-tokens')));
    expect(left).toBeLessThan(BUDGET - MAX_TOKENS);
    expect(ok.get('x-ratelimit-limit-tokens')).toBe(String(BUDGET));
  });

  it('should not retry a token_budget 429 that says x-should-retry: false', async () => {
    fake.setUsage({ completion: 'max_tokens' });
    const { client, attempts } = openAiClient(daily, creds, { maxRetries: 2 });
    const create = () =>
      client.chat.completions.create({ ...chatParams('hi'), max_tokens: MAX_TOKENS }).then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(await create()).toBeUndefined();
    const before = fake.requests;
    const err = await create();
    expect(err).toBeInstanceOf(RateLimitError);
    const e = err as RateLimitError;
    expect(e).toMatchObject({ status: 429, code: 'token_budget' });
    expect(e.headers?.get('x-should-retry')).toBe('false');
    expect(Number(e.headers?.get('retry-after'))).toBeGreaterThan(60);
    expect(e.headers?.get('ratelimit-policy')).toBe(
      `"inference.week-tokens";q=${BUDGET};w=${7 * 86_400}`,
    );
    expect(e.headers?.get('ratelimit')).toMatch(/^"inference\.week-tokens";r=\d+;t=\d+$/);
    // One call, one refused attempt: the SDK did not send it again, and nothing reached the upstream.
    expect(attempts.map((a) => a.status)).toEqual([200, 429]);
    expect(fake.requests).toBe(before);
  });
});
