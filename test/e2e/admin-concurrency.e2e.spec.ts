/**
 * Admin edits of a concurrency rule (docs/rate-limit.md#concurrency, docs/admin-api.md) reach the running service
 * on the next request, on both adapters and both stores (Redis: a redis-server of its own): a limit raised lets
 * more streams in, a limit lowered refuses the next one, a rule in shadow mode counts `shadow_rejected` and never
 * blocks. An invalid concurrency rule is refused with 400 `invalid_policy` naming each problem, and changes nothing.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RampartConfig } from '../../src/config/config.types.js';
import type { RuleConfig } from '../../src/locks/rate-limit/rate-limit.types.js';
import { signRequest } from '../../src/sdk/sign-request.js';
import { ADMIN_TOKEN, AdminClient } from '../support/admin-client.js';
import { ADAPTERS, RunningApp, startApp } from '../support/app.js';
import { FakeOpenAI, startFakeOpenAI } from '../support/fake-openai.js';
import { type RedisProcess, redisServerAvailable, startRedis } from '../support/redis-server.js';
import { testApps } from '../support/signature-routes.js';

const OPTIONS = '/admin/policies/inference/locks/rateLimit/options';

/** The inference rules under test: a per-app concurrency rule of `capacity` (in `mode`) and a generous rate. */
const rules = (capacity: number, mode: 'enforce' | 'shadow' = 'enforce'): RuleConfig[] =>
  [
    {
      name: 'app-concurrent',
      dimension: 'app',
      algorithm: 'concurrency',
      capacity,
      lease: '10m',
      mode,
    },
    { name: 'per-app', dimension: 'app', capacity: 1000, rate: '100/s' },
  ] as RuleConfig[];

/** Fixed quotas (no risk scaling), the shield off: only the rules above decide. */
function oneConcurrencyRule(c: RampartConfig): RampartConfig {
  const policies = structuredClone(c.policies);
  const inference = policies.inference!;
  inference.locks.cacheShield = { mode: 'off' };
  inference.locks.rateLimit = { mode: 'enforce', failMode: 'closed', rules: rules(1) } as never;
  const rateLimit = { ...(c.sections.rateLimit as object | undefined), risk: { enabled: false } };
  return { ...c, policies, sections: { ...c.sections, rateLimit } };
}

const STORES = ['memory', ...(redisServerAvailable() ? ['redis'] : [])] as const;

describe.each(ADAPTERS.flatMap((adapter) => STORES.map((store) => ({ adapter, store }))))(
  'admin edits of a concurrency rule ($adapter, $store store)',
  ({ adapter, store }) => {
    const apps = testApps();
    let redis: RedisProcess | undefined;
    let fake: FakeOpenAI;
    let app: RunningApp;
    let admin: AdminClient;
    const held: { hangUp: () => void }[] = [];

    beforeAll(async () => {
      fake = await startFakeOpenAI();
      if (store === 'redis') redis = await startRedis();
      app = await startApp(
        {
          HTTP_ADAPTER: adapter,
          ADMIN_TOKEN,
          INFERENCE_UPSTREAM_URL: fake.url,
          APPS_FILE: apps.file,
          ...(redis ? { REDIS_URL: redis.url, REDIS_COMMAND_TIMEOUT_MS: '2000' } : {}),
        },
        { search: 'empty', config: oneConcurrencyRule },
      );
      admin = new AdminClient(app);
    });
    afterAll(async () => {
      for (const h of held.splice(0)) h.hangUp();
      await app?.close();
      await fake?.close();
      await redis?.stop();
    });

    /** A signed streamed completion of the main app: its status once the headers are in, and a way to hang up. */
    const stream = (): Promise<{ res: IncomingMessage; hangUp: () => void }> => {
      const url = `${app.url}/v1/chat/completions`;
      const body = JSON.stringify({
        model: 'gpt-4o-mini',
        stream: true,
        max_tokens: 16,
        messages: [{ role: 'user', content: 'hold the line' }],
      });
      const { appId } = apps.main;
      const headers = signRequest({
        appId,
        secret: apps.main.secrets[0]!,
        method: 'POST',
        url,
        body,
      });
      return new Promise((resolve, reject) => {
        const req = httpRequest(url, {
          method: 'POST',
          agent: false,
          headers: { 'content-type': 'application/json', ...headers },
        });
        req.on('response', (res) => {
          const h = { res, hangUp: () => req.destroy() };
          if (res.statusCode === 200) held.push(h);
          else res.resume();
          resolve(h);
        });
        req.on('error', (e) => (req.destroyed ? undefined : reject(e)));
        req.end(body);
      });
    };
    const statusOf = async (): Promise<number> => (await stream()).res.statusCode!;
    const hangUpAll = async (): Promise<void> => {
      for (const h of held.splice(0)) h.hangUp();
      // The leases come back when the responses close (asynchronously): wait until a stream is served again.
      await expect.poll(statusOf, { timeout: 5_000 }).toBe(200);
      for (const h of held.splice(0)) h.hangUp();
      await expect.poll(() => fake.inFlight, { timeout: 5_000 }).toBe(0);
    };
    const edit = async (body: RuleConfig[]): Promise<void> => {
      const r = await admin.call('PATCH', OPTIONS, { options: { rules: body } });
      expect(r.status, r.text).toBe(200);
    };
    const shadowRejected = async (): Promise<number> => {
      const text = await (await fetch(`${app.url}/metrics`)).text();
      const line = text
        .split('\n')
        .find(
          (l) =>
            l.startsWith('rampart_ratelimit_decisions_total{') &&
            l.includes('policy="inference"') &&
            l.includes('rule="app-concurrent"') &&
            l.includes('outcome="shadow_rejected"'),
        );
      return line ? Number(line.split(' ').pop()) : 0;
    };

    it('should enforce a raised and then a lowered limit on the next request', async () => {
      fake.pauseStreams();
      expect(await statusOf()).toBe(200);
      expect(await statusOf()).toBe(429); // the shipped capacity 1 here
      await edit(rules(3));
      expect([await statusOf(), await statusOf(), await statusOf()]).toEqual([200, 200, 429]);
      await edit(rules(2)); // three held, two allowed now
      expect(await statusOf()).toBe(429);
      held.pop()!.hangUp();
      held.pop()!.hangUp(); // one held: a second fits under 2 once the leases are back
      await expect.poll(statusOf, { timeout: 5_000 }).toBe(200);
      expect(await statusOf()).toBe(429);
      fake.resumeStreams();
      await hangUpAll();
      fake.reset();
    });

    it('should count a shadow concurrency rule past its limit as shadow_rejected and never block, until enforced again', async () => {
      await edit(rules(1, 'shadow'));
      fake.pauseStreams();
      const before = await shadowRejected();
      expect([await statusOf(), await statusOf(), await statusOf()]).toEqual([200, 200, 200]);
      expect(await shadowRejected()).toBe(before + 2);
      await edit(rules(1, 'enforce'));
      expect(await statusOf()).toBe(429);
      fake.resumeStreams();
      await hangUpAll();
      fake.reset();
    });

    it('should refuse invalid concurrency rules with 400 invalid_policy naming each problem, and change nothing', async () => {
      const before = await admin.version();
      const bad = [
        { name: 'app-concurrent', dimension: 'app', algorithm: 'concurrency', capacity: 0 },
        { name: 'c-rate', dimension: 'app', algorithm: 'concurrency', capacity: 2, rate: '1/s' },
        {
          name: 'c-lease',
          dimension: 'user',
          algorithm: 'concurrency',
          capacity: 2,
          lease: '10ms',
        },
        { name: 'c-long', dimension: 'ip', algorithm: 'concurrency', capacity: 2, lease: '2d' },
        {
          name: 'c-penalty',
          dimension: 'app',
          algorithm: 'concurrency',
          capacity: 2,
          penalty: { threshold: 3, factor: 0.5, decay: '1m' },
        },
        { name: 'c-mode', dimension: 'app', algorithm: 'concurrency', capacity: 2, mode: 'dry' },
        { name: 'c-window', dimension: 'app', algorithm: 'concurrency', capacity: 2, window: 5 },
      ];
      const r = await admin.call<{ error: string; status: number; problems: string[] }>(
        'PATCH',
        OPTIONS,
        { options: { rules: bad } },
      );
      expect(r.status).toBe(400);
      expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(r.body.error).toBe('invalid_policy');
      const problems = r.body.problems.join('\n');
      const at = (i: number, field: string): RegExp =>
        new RegExp(`policies\\.inference\\.locks\\.rateLimit\\.rules\\[${i}\\]\\.${field}:`);
      for (const [i, field] of [
        [0, 'capacity'],
        [1, 'rate'],
        [2, 'lease'],
        [3, 'lease'],
        [4, 'penalty'],
        [5, 'mode'],
        [6, 'window'],
      ] as const)
        expect(problems).toMatch(at(i, field));
      expect(await admin.version()).toBe(before);
      // Still the last valid rule (capacity 1, enforced).
      fake.pauseStreams();
      expect([await statusOf(), await statusOf()]).toEqual([200, 429]);
      fake.resumeStreams();
      await hangUpAll();
      fake.reset();
    });
  },
);
