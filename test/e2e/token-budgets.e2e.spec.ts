/**
 * Token budgets (docs/rate-limit.md#token-rules, docs/inference.md#token-budgets) on both adapters and both stores,
 * against the fake upstream: many concurrent large requests never take a budget past its limit; a call is settled
 * to the upstream's usage; a stream without usage is counted from its deltas; a client abort is charged what it was
 * sent; app B cannot spend app A's user budget; 429 `token_budget` with its headers.
 *
 * The budget is read exactly with a probe: a request whose reservation can never fit (max_tokens 8192 > the
 * budget) is refused and changes nothing, and its `x-ratelimit-remaining-tokens` is the budget less what is used.
 */
import { describe, expect, it } from 'vitest';
import type { RuleConfig } from '../../src/locks/rate-limit/rate-limit.types.js';
import { sseData } from '../support/fake-openai.js';
import {
  inferenceCases,
  useInferenceHarness,
  withInferenceRules,
} from '../support/inference-harness.js';

const USER_BUDGET = 5_000;
const APP_BUDGET = 1_000_000;

/** The shipped inference policy with small token budgets per user (header x-user-id) and app. */
const RULES: RuleConfig[] = [
  {
    name: 'user-tokens',
    dimension: 'user',
    algorithm: 'tokens',
    capacity: USER_BUDGET,
    window: '1d',
  },
  {
    name: 'app-tokens',
    dimension: 'app',
    algorithm: 'tokens',
    capacity: APP_BUDGET,
    window: '1d',
  },
  { name: 'user-concurrent', dimension: 'user', algorithm: 'concurrency', capacity: 100 },
];

describe.each(inferenceCases('tok'))('token budgets ($adapter, $store store)', (c) => {
  const h = useInferenceHarness(c, withInferenceRules(RULES), {}, 'empty');
  const { apps } = h;
  let n = 0;
  const newUser = (): string => `user-${++n}`;
  const signed = (appId: string, user: string, body: object) =>
    h.signed({ ...h.chatDefaults, ...body }, { appId, user });
  const call = (user: string, body: object, appId = apps.main.appId): Promise<Response> =>
    h.call(user, body, appId);
  /** Tokens left in `user`'s budget (a refused probe charges nothing). */
  const left = async (user: string, appId = apps.main.appId): Promise<number> => {
    const res = await call(user, { max_tokens: 8192 }, appId);
    expect(res.status).toBe(429);
    await res.arrayBuffer();
    return Number(res.headers.get('x-ratelimit-remaining-tokens'));
  };
  /** `rampart_inference_charge_total` (`calls`) or `rampart_inference_charged_tokens_total` of one `how`. */
  const charges = async (how: string, what: 'calls' | 'tokens' = 'calls'): Promise<number> => {
    const name = what === 'calls' ? 'charge_total' : 'charged_tokens_total';
    const series = `rampart_inference_${name}{how="${how}"} `;
    const text = await (await fetch(`${h.app.url}/metrics`)).text();
    const line = text.split('\n').find((l) => l.startsWith(series));
    return line ? Number(line.slice(series.length)) : 0;
  };
  /** The reservation of a request: its prompt's count (from an allowed answer's headers) + max_tokens. */
  const promptOf = (res: Response, before: number, maxTokens: number): number =>
    before - Number(res.headers.get('x-ratelimit-remaining-tokens')) - maxTokens;

  it('should never take a budget past its limit under many concurrent large requests', async () => {
    const user = newUser();
    h.fake.setUsage({ completion: 'max_tokens' });
    h.fake.setLatency(50);
    try {
      const all = await Promise.all(
        Array.from({ length: 40 }, () =>
          call(user, { max_tokens: 1000 }).then(async (r) => {
            const body = (await r.json()) as {
              usage?: { total_tokens: number };
              error?: unknown;
            };
            return { status: r.status, usage: body.usage?.total_tokens ?? 0, r };
          }),
        ),
      );
      const ok = all.filter((a) => a.status === 200);
      const refused = all.filter((a) => a.status === 429);
      expect(ok.length + refused.length).toBe(40);
      expect(ok.length).toBeGreaterThan(0);
      const reservation = promptOf(ok[0]!.r, USER_BUDGET, 1000) + 1000;
      expect(ok.length).toBeLessThanOrEqual(Math.floor(USER_BUDGET / reservation));
      const charged = ok.reduce((s, a) => s + a.usage, 0);
      expect(charged).toBeLessThanOrEqual(USER_BUDGET);
      // Settled to the upstream's usage exactly: what is left is the budget less what was charged.
      await expect.poll(() => left(user)).toBe(USER_BUDGET - charged);
    } finally {
      h.fake.reset();
    }
  });

  it("should settle a call to the upstream's usage, and refuse with 429 token_budget and token headers", async () => {
    const user = newUser();
    const byUsage = await charges('usage');
    const res = await call(user, { max_tokens: 500 });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { usage: { total_tokens: number } };
    await expect.poll(() => charges('usage')).toBe(byUsage + 1);
    expect(res.headers.get('x-ratelimit-limit-tokens')).toBe(String(USER_BUDGET));
    expect(res.headers.get('x-ratelimit-reset-tokens')).toMatch(
      /^(\d+h)?(\d+m)?(\d+(\.\d+)?s|\d+ms)$/,
    );
    expect(promptOf(res, USER_BUDGET, 500)).toBeGreaterThan(0);
    await expect.poll(() => left(user)).toBe(USER_BUDGET - body.usage.total_tokens);
    const refused = await call(user, { max_tokens: 8192 });
    expect(refused.status).toBe(429);
    const problem = (await refused.json()) as { error: { code: string } };
    expect(problem.error.code).toBe('token_budget');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(60);
    expect(refused.headers.get('x-should-retry')).toBe('false');
    expect(refused.headers.get('x-ratelimit-remaining-tokens')).toBe(
      String(USER_BUDGET - body.usage.total_tokens),
    );
  });

  it('should count a stream without usage from its deltas, and keep the usage chunk from a client that did not ask', async () => {
    const user = newUser();
    const res = await call(user, { max_tokens: 100, stream: true });
    expect(res.status).toBe(200);
    const events: string[] = [];
    for await (const d of sseData(res)) events.push(d);
    // Rampart asked the upstream for usage; the client did not, and gets no usage chunk.
    expect(h.fake.lastRequest?.body?.stream_options).toEqual({ include_usage: true });
    expect(events.some((e) => e.includes('"usage"'))).toBe(false);
    // The fake reported 5 + 8: settled to exactly that.
    await expect.poll(() => left(user)).toBe(USER_BUDGET - 13);

    h.fake.setUsage('omit');
    try {
      const bare = newUser();
      const r2 = await call(bare, { max_tokens: 100, stream: true });
      const prompt = promptOf(r2, USER_BUDGET, 100);
      for await (const d of sseData(r2)) void d;
      // No usage: the prompt's admission count + the 8 words streamed (one o200k token each).
      await expect.poll(() => left(bare)).toBe(USER_BUDGET - prompt - 8);
    } finally {
      h.fake.reset();
    }
  });

  it('should charge a client that goes away mid-stream what it was sent', async () => {
    const user = newUser();
    h.fake.setUsage('omit');
    h.fake.pauseStreams();
    try {
      const [partial, partialTokens] = [
        await charges('abort_partial'),
        await charges('abort_partial', 'tokens'),
      ];
      const s = signed(apps.main.appId, user, { max_tokens: 100, stream: true });
      const aborted = h.fake.aborted;
      // Hung up once the first content chunk ("This") arrived.
      const headers = await h.abortAfter(s);
      const prompt = USER_BUDGET - Number(headers['x-ratelimit-remaining-tokens']) - 100;
      await expect.poll(() => h.fake.aborted).toBeGreaterThan(aborted);
      // The prompt + "This" (one token); the role chunk's empty content is nothing.
      await expect.poll(() => left(user)).toBe(USER_BUDGET - prompt - 1);
      // Settled as a stop read until the upstream stopped (the paused fake ends at the half-close).
      expect(await charges('abort_partial')).toBe(partial + 1);
      expect(await charges('abort_partial', 'tokens')).toBe(partialTokens + prompt + 1);
    } finally {
      h.fake.reset();
    }
  });

  it('should end a stream the upstream finished and then reset as whole, settled from what it sent', async () => {
    // The fake resets its connection once `[DONE]` is on the wire, before the end of the chunked body.
    h.fake.setFailAfterDone(true);
    /** The events a client read, the last one first. */
    const events = async (res: Response): Promise<string[]> => {
      const out: string[] = [];
      for await (const d of sseData(res)) out.unshift(d);
      return out;
    };
    try {
      // With usage: the usage chunk and `[DONE]` were read before the connection failed.
      const user = newUser();
      const [byUsage, refunds] = [await charges('usage'), await charges('error_refund')];
      const res = await call(user, { max_tokens: 100, stream: true });
      // Whole: no error event after its `[DONE]`.
      expect((await events(res))[0]).toBe('[DONE]');
      await expect.poll(() => charges('usage')).toBe(byUsage + 1);
      expect(await left(user)).toBe(USER_BUDGET - 13);
      // Without usage: counted from its deltas (the prompt + 8 words), as a stream that ended whole.
      h.fake.setUsage('omit');
      const bare = newUser();
      const byCount = await charges('counted');
      const r2 = await call(bare, { max_tokens: 100, stream: true });
      const prompt = promptOf(r2, USER_BUDGET, 100);
      expect((await events(r2))[0]).toBe('[DONE]');
      await expect.poll(() => charges('counted')).toBe(byCount + 1);
      expect(await left(bare)).toBe(USER_BUDGET - prompt - 8);
      expect(await charges('error_refund')).toBe(refunds);
    } finally {
      h.fake.reset();
    }
  });

  it('should count the tokens used per rule and model in Prometheus, with no user or app label', async () => {
    const series = (rule: string) =>
      `rampart_ratelimit_tokens_used_total{policy="inference",rule="${rule}",model="gpt-4o-mini",count="total"}`;
    const read = async (rule: string): Promise<number> => {
      const text = await (await fetch(`${h.app.url}/metrics`)).text();
      const line = text.split('\n').find((l) => l.startsWith(`${series(rule)} `));
      return line ? Number(line.slice(series(rule).length + 1)) : 0;
    };
    const [user0, app0] = [await read('user-tokens'), await read('app-tokens')];
    const res = await call(newUser(), { max_tokens: 50 });
    const { usage } = (await res.json()) as { usage: { total_tokens: number } };
    await expect.poll(() => read('app-tokens')).toBe(app0 + usage.total_tokens);
    expect(await read('user-tokens')).toBe(user0 + usage.total_tokens);
    const text = await (await fetch(`${h.app.url}/metrics`)).text();
    const lines = text
      .split('\n')
      .filter((l) => l.startsWith('rampart_ratelimit_tokens_used_total{'));
    expect(lines.some((l) => /user-\d|app=|user=/.test(l))).toBe(false);
  });

  it("should keep each app's users apart: app B cannot spend app A's user budget", async () => {
    const user = newUser();
    h.fake.setUsage({ completion: 'max_tokens' });
    try {
      // App B (debug) spends its own user-N's budget down to nothing it can use.
      for (let i = 0; i < 4; i++)
        await (await call(user, { max_tokens: 1000 }, apps.debug.appId)).arrayBuffer();
      expect(await left(user, apps.debug.appId)).toBeLessThan(1000);
      // App A's user with the same id still has its whole budget.
      expect(await left(user, apps.main.appId)).toBe(USER_BUDGET);
      expect((await call(user, { max_tokens: 1000 }, apps.main.appId)).status).toBe(200);
    } finally {
      h.fake.reset();
    }
  });
});
