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
import { describe, expect, it } from 'vitest';
import type { RuleConfig } from '../../src/locks/rate-limit/rate-limit.types.js';
import {
  inferenceCases,
  useInferenceHarness,
  withInferenceRules,
} from '../support/inference-harness.js';

/** $0.05 a day per user, in micro-dollars. */
const BUDGET = 50_000;
/** USD per 1M tokens: micro-dollars per token. */
const PRICE = { prompt: 2.5, completion: 10 };

/** A spend budget per user, and room for many answers in flight. */
const RULES: RuleConfig[] = [
  {
    name: 'user-spend',
    dimension: 'user',
    algorithm: 'tokens',
    // In money (docs/quotas.md#spend-budgets): BUDGET micro-dollars.
    budget: '$0.05',
    window: '1d',
  },
  { name: 'user-concurrent', dimension: 'user', algorithm: 'concurrency', capacity: 100 },
];

interface Usage {
  totals: { promptTokens: number; completionTokens: number; spendMicros: number };
}
interface Answer {
  usage?: { prompt_tokens: number; completion_tokens: number };
}

describe.each(inferenceCases('spd'))('spend budgets ($adapter, $store store)', (c) => {
  const h = useInferenceHarness(
    c,
    withInferenceRules(RULES, { prices: { 'gpt-4o-mini': PRICE } }),
    {},
    'empty',
  );
  const { apps } = h;
  let n = 0;
  const newUser = (): string => `spend-user-${++n}`;
  const call = (
    user: string,
    body: object,
    appId = apps.main.appId,
    model = 'gpt-4o-mini',
  ): Promise<Response> =>
    h.call(
      user,
      { messages: [{ role: 'user', content: 'Count my spend, please.' }], model, ...body },
      appId,
    );
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
    const r = await h.admin.call<Usage>(
      'GET',
      `/admin/usage?app=${apps.main.appId}&user=${user}&period=day`,
    );
    expect(r.status).toBe(200);
    return r.body.totals.spendMicros;
  };

  it('should never take a spend budget past its limit under many concurrent large requests', async () => {
    const user = newUser();
    h.fake.setUsage({ completion: 'max_tokens' });
    h.fake.setLatency(50);
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
      h.fake.reset();
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
    h.fake.setUsage({ completion: 'max_tokens' });
    try {
      for (let i = 0; i < 4; i++) await (await call(user, { max_tokens: 1000 })).arrayBuffer();
    } finally {
      h.fake.reset();
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
      const text = await (await fetch(`${h.app.url}/metrics`)).text();
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
    h.fake.setUsage({ completion: 'max_tokens' });
    try {
      for (let i = 0; i < 5; i++)
        await (await call(user, { max_tokens: 1000 }, apps.debug.appId)).arrayBuffer();
      expect(await left(user, apps.debug.appId)).toBeLessThan(10_000);
      expect(await left(user, apps.main.appId)).toBe(BUDGET);
      expect((await call(user, { max_tokens: 1000 }, apps.main.appId)).status).toBe(200);
    } finally {
      h.fake.reset();
    }
  });

  it('should refuse a budget that is no amount through the admin API, at its path (400 invalid_policy)', async () => {
    const path = '/admin/policies/inference/locks/rateLimit/options';
    const bad = [{ ...RULES[0]!, budget: 'five dollars' }, RULES[1]!];
    const r = await h.admin.call<{ error: string; problems: string[] }>('PATCH', path, {
      options: { rules: bad },
    });
    expect(r.status).toBe(400);
    expect(r.body.error).toBe('invalid_policy');
    expect(r.body.problems.join('\n')).toMatch(
      /rules\[0\]\.budget: must be an amount in US dollars/,
    );
    // Shown as written: in money.
    const shown = await h.admin.call<{
      policies: Record<string, { locks: { rateLimit: { rules: RuleConfig[] } } }>;
    }>('GET', '/admin/policies');
    expect(shown.body.policies.inference!.locks.rateLimit.rules[0]).toMatchObject({
      budget: '$0.05',
    });
  });
});
