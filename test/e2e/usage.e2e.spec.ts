/**
 * Usage and spend (docs/quotas.md#usage-and-spend, docs/admin-api.md#usage) on both adapters and both stores,
 * against the fake upstream: what `GET /admin/usage` reports equals the upstream's reported usage (JSON, stream),
 * the metered count when a stream has no usage, what was sent when the client aborts, nothing for an upstream
 * error; spend = tokens × `inference.prices`; the user is looked up by its keyed hash; app B's traffic never shows
 * under app A; an app's own signed request cannot read usage; bad queries are 400 `invalid_usage_query`.
 */
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RampartConfig } from '../../src/config/config.types.js';
import type { RuleConfig } from '../../src/locks/rate-limit/rate-limit.types.js';
import { signRequest } from '../../src/sdk/sign-request.js';
import { ADMIN_TOKEN, AdminClient } from '../support/admin-client.js';
import { ADAPTERS, RunningApp, startApp } from '../support/app.js';
import { FakeOpenAI, sseData, startFakeOpenAI } from '../support/fake-openai.js';
import { redisUrl, uniqueEnv } from '../support/redis-env.js';
import { testApps } from '../support/signature-routes.js';

const STORES = [
  { store: 'memory', env: (): Record<string, string> => ({}) },
  ...(redisUrl()
    ? [
        {
          store: 'redis',
          env: (): Record<string, string> => ({
            REDIS_URL: redisUrl(),
            RAMPART_ENV: uniqueEnv('use'),
            REDIS_COMMAND_TIMEOUT_MS: '2000',
          }),
        },
      ]
    : []),
];
/** USD per 1M tokens: micro-dollars per token. */
const PRICE = { prompt: 2.5, completion: 10 };

function withUsage(c: RampartConfig): RampartConfig {
  const inference = c.policies.inference!;
  const rl = inference.locks.rateLimit as unknown as { mode: 'enforce'; rules: RuleConfig[] };
  const rules: RuleConfig[] = [
    { name: 'user-tokens', dimension: 'user', algorithm: 'tokens', capacity: 1e6, window: '1d' },
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

describe.each(ADAPTERS.flatMap((adapter) => STORES.map((s) => ({ adapter, ...s }))))(
  'usage and spend ($adapter, $store store)',
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
    const newUser = (): string => `usage-user-${++n}`;

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
        { config: withUsage },
      );
      admin = new AdminClient(app);
    });
    afterAll(async () => {
      await app?.close();
      await fake?.close();
    });

    const signed = (appId: string, user: string, body: object, path = '/v1/chat/completions') => {
      const url = `${app.url}${path}`;
      const text = JSON.stringify({
        model: 'gpt-4o-mini',
        messages: [{ role: 'user', content: 'Count my tokens, please.' }],
        ...body,
      });
      const headers = signRequest({
        appId,
        secret: secrets[appId]!,
        method: 'POST',
        url,
        body: text,
      });
      return {
        url,
        text,
        headers: { 'content-type': 'application/json', 'x-user-id': user, ...headers },
      };
    };
    const call = (user: string, body: object, appId = apps.main.appId): Promise<Response> => {
      const s = signed(appId, user, body);
      return fetch(s.url, { method: 'POST', headers: s.headers, body: s.text });
    };
    const usage = async (q: string): Promise<Usage> => {
      const r = await admin.call<Usage>('GET', `/admin/usage?${q}`);
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
      const text = await (await fetch(`${app.url}/metrics`)).text();
      const lines = text.split('\n').filter((l) => l.startsWith('rampart_ratelimit_spend_total{'));
      const mini = lines.find((l) => l.includes('model="gpt-4o-mini"'));
      expect(Number(mini?.split(' ')[1])).toBeGreaterThanOrEqual(want.spendMicros + spend(5, 8));
      expect(lines.some((l) => /app=|user=|usage-user/.test(l))).toBe(false);
    });

    it('should record a stream without usage as metered, an abort as what was sent, an error as nothing', async () => {
      fake.setUsage('omit');
      try {
        const bare = newUser();
        const r = await call(bare, { max_tokens: 100, stream: true });
        const prompt = 1e6 - Number(r.headers.get('x-ratelimit-remaining-tokens')) - 100;
        for await (const d of sseData(r)) void d;
        await expect
          .poll(() => ofUser(bare))
          .toMatchObject({ promptTokens: prompt, completionTokens: 8 });

        const gone = newUser();
        fake.pauseStreams();
        const s = signed(apps.main.appId, gone, { max_tokens: 100, stream: true });
        await new Promise<void>((resolve, reject) => {
          const req = httpRequest(s.url, { method: 'POST', agent: false, headers: s.headers });
          req.on('response', (res) => {
            let text = '';
            res.on('data', (b: Buffer) => {
              text += b.toString('utf8');
              if (text.includes('"This"')) {
                req.destroy();
                resolve();
              }
            });
          });
          req.on('error', () => undefined);
          req.end(s.text);
          setTimeout(() => reject(new Error('no first chunk')), 10_000).unref();
        });
        await expect
          .poll(() => ofUser(gone))
          .toMatchObject({ promptTokens: prompt, completionTokens: 1 });
      } finally {
        fake.reset();
      }
      const failed = newUser();
      fake.setStatus(500);
      try {
        const r = await call(failed, { max_tokens: 10 });
        expect(r.status).toBeGreaterThanOrEqual(500);
        await r.arrayBuffer();
      } finally {
        fake.reset();
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
      const url = `${app.url}/admin/usage?app=${apps.debug.appId}`;
      const h = signRequest({
        appId: apps.debug.appId,
        secret: secrets[apps.debug.appId]!,
        method: 'GET',
        url,
        body: '',
      });
      const r = await fetch(url, { headers: h });
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
        const r = await admin.call<{ error: string; problems: string[] }>(
          'GET',
          `/admin/usage?${q}`,
        );
        expect(r.status, q).toBe(400);
        expect(r.headers.get('content-type')).toContain('application/problem+json');
        expect(r.body.error).toBe('invalid_usage_query');
        expect(r.body.problems.length).toBeGreaterThan(0);
      }
      const two = await admin.call<{ problems: string[] }>(
        'GET',
        '/admin/usage?period=week&user=x',
      );
      expect(two.body.problems).toHaveLength(2);
      expect((await admin.withToken(null).call('GET', '/admin/usage')).status).toBe(401);
    });
  },
);
