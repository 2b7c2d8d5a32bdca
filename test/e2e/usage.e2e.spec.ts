/**
 * Usage and spend (docs/quotas.md#usage-and-spend, docs/admin-api.md#usage) on both adapters and both stores,
 * against the fake upstream: what `GET /admin/usage` reports equals the upstream's reported usage (JSON, stream),
 * the metered count when a stream has no usage, what was sent when the client aborts, nothing for an upstream
 * error; spend = tokens × `inference.prices`; the user is looked up by its keyed hash; app B's traffic never shows
 * under app A; an app's own signed request cannot read usage; bad queries are 400 `invalid_usage_query`.
 */
import { describe, expect, it } from 'vitest';
import { signRequest } from '../../src/sdk/sign-request.js';
import { sseData } from '../support/fake-openai.js';
import {
  inferenceCases,
  useInferenceHarness,
  withInferenceRules,
} from '../support/inference-harness.js';

/** USD per 1M tokens: micro-dollars per token. */
const PRICE = { prompt: 2.5, completion: 10 };

interface Usage {
  user: string | null;
  rows: {
    app: string;
    model: string;
    promptTokens: number;
    completionTokens: number;
    spendMicros: number;
  }[];
  totals: { promptTokens: number; completionTokens: number; spendMicros: number };
}

const WITH_USAGE = withInferenceRules(
  [{ name: 'user-tokens', dimension: 'user', algorithm: 'tokens', capacity: 1e6, window: '1d' }],
  { prices: { 'gpt-4o-mini': PRICE } },
);

describe.each(inferenceCases('use'))('usage and spend ($adapter, $store store)', (c) => {
  const h = useInferenceHarness(c, WITH_USAGE, {}, 'empty');
  const { apps, secrets } = h;
  let n = 0;
  const newUser = (): string => `usage-user-${++n}`;
  const signed = (appId: string, user: string, body: object) =>
    h.signed({ ...h.chatDefaults, ...body }, { appId, user });
  const call = (user: string, body: object, appId = apps.main.appId): Promise<Response> =>
    h.call(user, body, appId);
  const usage = async (q: string): Promise<Usage> => {
    const r = await h.admin.call<Usage>('GET', `/admin/usage?${q}`);
    expect(r.status).toBe(200);
    return r.body;
  };
  const ofUser = (user: string, appId = apps.main.appId) =>
    usage(`app=${appId}&user=${user}&period=hour`).then((u) => u.totals);
  const spend = (p: number, c: number) => Math.round(p * PRICE.prompt + c * PRICE.completion);

  it("should record a JSON answer's and a stream's usage as the upstream reported it, with its spend", async () => {
    const user = newUser();
    const res = await call(user, { max_tokens: 50 });
    const { usage: u } = (await res.json()) as {
      usage: { prompt_tokens: number; completion_tokens: number };
    };
    const want = {
      promptTokens: u.prompt_tokens,
      completionTokens: u.completion_tokens,
      spendMicros: spend(u.prompt_tokens, u.completion_tokens),
    };
    await expect.poll(() => ofUser(user)).toEqual(want);
    const s = await call(user, { max_tokens: 50, stream: true });
    for await (const d of sseData(s)) void d;
    // The fake's stream reports 5 + 8.
    await expect
      .poll(() => ofUser(user))
      .toEqual({
        promptTokens: want.promptTokens + 5,
        completionTokens: want.completionTokens + 8,
        // Each answer's spend is rounded to whole micro-dollars on its own.
        spendMicros: want.spendMicros + spend(5, 8),
      });
    const day = await usage(`app=${apps.main.appId}&user=${user}&period=day&model=gpt-4o-mini`);
    expect(day.rows).toHaveLength(1);
    expect(day.rows[0]).toMatchObject({ app: apps.main.appId, model: 'gpt-4o-mini' });
    expect(day.user).toMatch(/^[A-Za-z0-9_-]{16}$/);
    expect(JSON.stringify(day)).not.toContain(user);
    // Prometheus: the spend in micro-dollars per policy and model, no app or user label.
    const text = await (await fetch(`${h.app.url}/metrics`)).text();
    const lines = text.split('\n').filter((l) => l.startsWith('rampart_ratelimit_spend_total{'));
    const mini = lines.find((l) => l.includes('model="gpt-4o-mini"'));
    expect(Number(mini?.split(' ')[1])).toBeGreaterThanOrEqual(want.spendMicros + spend(5, 8));
    expect(lines.some((l) => /app=|user=|usage-user/.test(l))).toBe(false);
  });

  it('should record a stream without usage as metered, an abort as what was sent, an error as nothing', async () => {
    h.fake.setUsage('omit');
    try {
      const bare = newUser();
      const r = await call(bare, { max_tokens: 100, stream: true });
      const prompt = 1e6 - Number(r.headers.get('x-ratelimit-remaining-tokens')) - 100;
      for await (const d of sseData(r)) void d;
      await expect
        .poll(() => ofUser(bare))
        .toMatchObject({ promptTokens: prompt, completionTokens: 8 });

      const gone = newUser();
      h.fake.pauseStreams();
      const s = signed(apps.main.appId, gone, { max_tokens: 100, stream: true });
      await h.abortAfter(s);
      await expect
        .poll(() => ofUser(gone))
        .toMatchObject({ promptTokens: prompt, completionTokens: 1 });
    } finally {
      h.fake.reset();
    }
    const failed = newUser();
    h.fake.setStatus(500);
    try {
      const r = await call(failed, { max_tokens: 10 });
      expect(r.status).toBeGreaterThanOrEqual(500);
      await r.arrayBuffer();
    } finally {
      h.fake.reset();
    }
    const ok = newUser();
    await (await call(ok, { max_tokens: 10 })).arrayBuffer();
    await expect.poll(async () => (await ofUser(ok)).promptTokens).toBeGreaterThan(0);
    expect(await ofUser(failed)).toEqual({
      promptTokens: 0,
      completionTokens: 0,
      spendMicros: 0,
    });
  });

  it("should keep apps apart: app B's usage never shows under app A, and an app cannot read usage", async () => {
    const user = newUser();
    await (await call(user, { max_tokens: 20 }, apps.debug.appId)).arrayBuffer();
    await expect
      .poll(async () => (await ofUser(user, apps.debug.appId)).promptTokens)
      .toBeGreaterThan(0);
    expect(await ofUser(user, apps.main.appId)).toEqual({
      promptTokens: 0,
      completionTokens: 0,
      spendMicros: 0,
    });
    // An app's signature is no admin credential.
    const url = `${h.app.url}/admin/usage?app=${apps.debug.appId}`;
    const sig = signRequest({
      appId: apps.debug.appId,
      secret: secrets[apps.debug.appId]!,
      method: 'GET',
      url,
      body: '',
    });
    const r = await fetch(url, { headers: sig });
    expect(r.status).toBe(401);
    expect(await r.text()).not.toContain('promptTokens');
  });

  it('should refuse bad queries with 400 invalid_usage_query, listing every problem', async () => {
    for (const q of [
      'period=week',
      'user=alice',
      'from=yesterday',
      'from=2026-12-06&to=2026-12-01',
      'period=hour&from=2020-01-01&to=2026-01-01',
      'app=a%20b',
      'colour=red',
      'app=x&app=y',
    ]) {
      const r = await h.admin.call<{ error: string; problems: string[] }>(
        'GET',
        `/admin/usage?${q}`,
      );
      expect(r.status, q).toBe(400);
      expect(r.headers.get('content-type')).toContain('application/problem+json');
      expect(r.body.error).toBe('invalid_usage_query');
      expect(r.body.problems.length).toBeGreaterThan(0);
    }
    const two = await h.admin.call<{ problems: string[] }>(
      'GET',
      '/admin/usage?period=week&user=x',
    );
    expect(two.body.problems).toHaveLength(2);
    expect((await h.admin.withToken(null).call('GET', '/admin/usage')).status).toBe(401);
  });
});

/** No tokens rule: only a request rule. Usage is recorded all the same, in the settlement that ends the call. */
const WITHOUT_TOKEN_RULES = withInferenceRules(
  [{ name: 'per-user', dimension: 'user', capacity: 1000, rate: '100/s' }],
  { prices: { 'gpt-4o-mini': PRICE } },
);

describe.each(inferenceCases('unt'))(
  'usage without a tokens rule ($adapter, $store store)',
  (c) => {
    const h = useInferenceHarness(c, WITHOUT_TOKEN_RULES, {}, 'empty');
    const ofUser = async (user: string) => {
      const r = await h.admin.call<Usage>(
        'GET',
        `/admin/usage?app=${h.apps.main.appId}&user=${user}&period=hour`,
      );
      expect(r.status).toBe(200);
      return r.body.totals;
    };
    const spend = (p: number, c: number) => Math.round(p * PRICE.prompt + c * PRICE.completion);

    it("should record a JSON answer's, a stream's and a stream without usage's tokens and spend", async () => {
      const user = 'untokened-user';
      const res = await h.call(user, { max_tokens: 50 });
      expect(res.status).toBe(200);
      const { usage: u } = (await res.json()) as {
        usage: { prompt_tokens: number; completion_tokens: number };
      };
      await expect
        .poll(() => ofUser(user))
        .toEqual({
          promptTokens: u.prompt_tokens,
          completionTokens: u.completion_tokens,
          spendMicros: spend(u.prompt_tokens, u.completion_tokens),
        });
      // The fake's stream reports 5 + 8.
      for await (const d of sseData(await h.call(user, { max_tokens: 50, stream: true }))) void d;
      const p = u.prompt_tokens + 5;
      const co = u.completion_tokens + 8;
      await expect
        .poll(() => ofUser(user))
        .toEqual({
          promptTokens: p,
          completionTokens: co,
          // Each answer's spend is rounded to a micro-dollar on its own.
          spendMicros: spend(u.prompt_tokens, u.completion_tokens) + spend(5, 8),
        });
      // A stream whose upstream sends no usage: its 8 streamed words are counted, the prompt as admitted.
      h.fake.setUsage('omit');
      try {
        for await (const d of sseData(await h.call(user, { max_tokens: 50, stream: true }))) void d;
        await expect.poll(async () => (await ofUser(user)).completionTokens).toBe(co + 8);
      } finally {
        h.fake.reset();
      }
    });
  },
);
