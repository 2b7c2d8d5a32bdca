/**
 * Spend budgets (docs/quotas.md#spend-budgets: `count: spend` on a tokens rule, capacity in micro-dollars) on both
 * adapters and both stores, against the fake upstream with `inference.prices`: concurrent large requests never take
 * the budget past its limit; the charge is the upstream's usage × the model's price exactly (GET /admin/usage says
 * the same); a spent budget refuses with 429 `token_budget`; a model with no price skips the rule; app B cannot
 * spend app A's user budget.
 *
 * What is left is read with a probe: max_tokens 8192 reserves more than the whole budget, so it is refused and
 * changes nothing, and its `x-ratelimit-remaining-tokens` is the budget (µ$) less what was charged.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RampartConfig } from '../../src/config/config.types.js';
import type { RuleConfig } from '../../src/locks/rate-limit/rate-limit.types.js';
import { signRequest } from '../../src/sdk/sign-request.js';
import { ADMIN_TOKEN, AdminClient } from '../support/admin-client.js';
import { ADAPTERS, RunningApp, startApp } from '../support/app.js';
import { FakeOpenAI, startFakeOpenAI } from '../support/fake-openai.js';
import { redisUrl, uniqueEnv } from '../support/redis-env.js';
import { testApps } from '../support/signature-routes.js';

/** $0.05 a day per user, in micro-dollars. */
const BUDGET = 50_000;
/** USD per 1M tokens: micro-dollars per token. */
const PRICE = { prompt: 2.5, completion: 10 };

const STORES = [
  { store: 'memory', env: (): Record<string, string> => ({}) },
  ...(redisUrl()
    ? [
        {
          store: 'redis',
          env: (): Record<string, string> => ({
            REDIS_URL: redisUrl(),
            RAMPART_ENV: uniqueEnv('spd'),
            REDIS_COMMAND_TIMEOUT_MS: '2000',
          }),
        },
      ]
    : []),
];

function withSpend(c: RampartConfig): RampartConfig {
  const inference = c.policies.inference!;
  const rl = inference.locks.rateLimit as unknown as { mode: 'enforce'; rules: RuleConfig[] };
  const rules: RuleConfig[] = [
    {
      name: 'user-spend',
      dimension: 'user',
      algorithm: 'tokens',
      count: 'spend',
      capacity: BUDGET,
      window: '1d',
    },
    { name: 'user-concurrent', dimension: 'user', algorithm: 'concurrency', capacity: 100 },
  ];
  return {
    ...c,
    sections: {
      ...c.sections,
      rateLimit: { userHeader: 'x-user-id' },
      inference: { prices: { 'gpt-4o-mini': PRICE } },
    },
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
}

interface Usage {
  totals: { promptTokens: number; completionTokens: number; spendMicros: number };
}
interface Answer {
  usage?: { prompt_tokens: number; completion_tokens: number };
}

describe.each(ADAPTERS.flatMap((adapter) => STORES.map((s) => ({ adapter, ...s }))))(
  'spend budgets ($adapter, $store store)',
  ({ adapter, env }) => {
    const apps = testApps();
    const secrets: Record<string, string> = {
      [apps.main.appId]: apps.main.secrets[0]!,
      [apps.debug.appId]: apps.debug.secret,
    };
    let fake: FakeOpenAI;
    let app: RunningApp;
    let admin: AdminClient;
    let n = 0;
    const newUser = (): string => `spend-user-${++n}`;

    beforeAll(async () => {
      fake = await startFakeOpenAI();
      app = await startApp(
        {
          ...env(),
          HTTP_ADAPTER: adapter,
          INFERENCE_UPSTREAM_URL: fake.url,
          APPS_FILE: apps.file,
          ADMIN_TOKEN,
        },
        { config: withSpend },
      );
      admin = new AdminClient(app);
    });
    afterAll(async () => {
      await app?.close();
      await fake?.close();
    });

    const call = (
      user: string,
      body: object,
      appId = apps.main.appId,
      model = 'gpt-4o-mini',
    ): Promise<Response> => {
      const url = `${app.url}/v1/chat/completions`;
      const text = JSON.stringify({
        model,
        messages: [{ role: 'user', content: 'Count my spend, please.' }],
        ...body,
      });
      const h = signRequest({ appId, secret: secrets[appId]!, method: 'POST', url, body: text });
      return fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-user-id': user, ...h },
        body: text,
      });
    };
    /** Micro-dollars left in `user`'s budget (a refused probe charges nothing). */
    const left = async (user: string, appId = apps.main.appId): Promise<number> => {
      const res = await call(user, { max_tokens: 8192 }, appId);
      expect(res.status).toBe(429);
      await res.arrayBuffer();
      return Number(res.headers.get('x-ratelimit-remaining-tokens'));
    };
    const spend = (u: Answer['usage']): number =>
      u ? Math.round(u.prompt_tokens * PRICE.prompt + u.completion_tokens * PRICE.completion) : 0;
    const recorded = async (user: string): Promise<number> => {
      const r = await admin.call<Usage>(
        'GET',
        `/admin/usage?app=${apps.main.appId}&user=${user}&period=day`,
      );
      expect(r.status).toBe(200);
      return r.body.totals.spendMicros;
    };

    it('should never take a spend budget past its limit under many concurrent large requests', async () => {
      const user = newUser();
      fake.setUsage({ completion: 'max_tokens' });
      fake.setLatency(50);
      try {
        const all = await Promise.all(
          Array.from({ length: 30 }, () =>
            call(user, { max_tokens: 1000 }).then(async (r) => ({
              status: r.status,
              body: (await r.json()) as Answer,
            })),
          ),
        );
        const ok = all.filter((a) => a.status === 200);
        expect(ok.length + all.filter((a) => a.status === 429).length).toBe(30);
        expect(ok.length).toBeGreaterThan(0);
        // Each reserved at least max_tokens × the completion price.
        expect(ok.length).toBeLessThanOrEqual(Math.floor(BUDGET / (1000 * PRICE.completion)));
        const charged = ok.reduce((s, a) => s + spend(a.body.usage), 0);
        expect(charged).toBeLessThanOrEqual(BUDGET);
        await expect.poll(() => left(user)).toBe(BUDGET - charged);
        expect(await recorded(user)).toBe(charged);
      } finally {
        fake.reset();
      }
    });

    it('should charge usage × price exactly, then refuse with 429 token_budget until the window ends', async () => {
      const user = newUser();
      const res = await call(user, { max_tokens: 500 });
      expect(res.status).toBe(200);
      const { usage } = (await res.json()) as Answer;
      const charge = spend(usage);
      expect(charge).toBeGreaterThan(0);
      await expect.poll(() => left(user)).toBe(BUDGET - charge);
      expect(await recorded(user)).toBe(charge);
      // Spend the rest: 4 answers of max_tokens 1000 (≥ 10 000 µ$ each) cannot all fit in what is left.
      fake.setUsage({ completion: 'max_tokens' });
      try {
        for (let i = 0; i < 4; i++) await (await call(user, { max_tokens: 1000 })).arrayBuffer();
      } finally {
        fake.reset();
      }
      const refused = await call(user, { max_tokens: 1000 });
      expect(refused.status).toBe(429);
      const problem = (await refused.json()) as { error: { code: string } };
      expect(problem.error.code).toBe('token_budget');
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(60);
    });

    it('should skip the spend rule for a model with no price, counted as skipped', async () => {
      const series =
        'rampart_ratelimit_skipped_total{policy="inference",rule="user-spend",dimension="user"}';
      const skipped = async (): Promise<number> => {
        const text = await (await fetch(`${app.url}/metrics`)).text();
        const line = text.split('\n').find((l) => l.startsWith(`${series} `));
        return line ? Number(line.slice(series.length + 1)) : 0;
      };
      const user = newUser();
      const before = await skipped();
      const res = await call(user, { max_tokens: 8192 }, apps.main.appId, 'unpriced-model');
      expect(res.status).toBe(200);
      await res.arrayBuffer();
      expect(await skipped()).toBe(before + 1);
      expect(await left(user)).toBe(BUDGET);
    });

    it("should keep each app's users apart: app B cannot spend app A's user budget", async () => {
      const user = newUser();
      fake.setUsage({ completion: 'max_tokens' });
      try {
        for (let i = 0; i < 5; i++)
          await (await call(user, { max_tokens: 1000 }, apps.debug.appId)).arrayBuffer();
        expect(await left(user, apps.debug.appId)).toBeLessThan(10_000);
        expect(await left(user, apps.main.appId)).toBe(BUDGET);
        expect((await call(user, { max_tokens: 1000 }, apps.main.appId)).status).toBe(200);
      } finally {
        fake.reset();
      }
    });
  },
);
