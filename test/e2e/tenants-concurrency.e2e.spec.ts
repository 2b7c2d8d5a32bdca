/**
 * Concurrency limits (docs/rate-limit.md#concurrency) on both adapters and both stores: an app with N streams in
 * flight gets 429 `concurrency_limit` on the next one while another app is served; its slots come back when its
 * clients hang up and when a stream ends. Stream limits (docs/inference.md#stream-limits): a client that does not
 * read is cut off and its upstream call cancelled; a stream past its maximum duration ends with an error event.
 * The four adapter × store cases run at the same time (most of their time is a stream running to its maximum
 * duration): each has its own fake upstream, app, apps file and Redis prefix; within a case the tests run in turn.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { afterAll, beforeAll, describe, it } from 'vitest';
import type { RampartConfig } from '../../src/config/config.types.js';
import type { RuleConfig } from '../../src/locks/rate-limit/rate-limit.types.js';
import { signRequest } from '../../src/sdk/sign-request.js';
import { ADAPTERS, RunningApp, startApp } from '../support/app.js';
import { FakeOpenAI, startFakeOpenAI } from '../support/fake-openai.js';
import { redisUrl, uniqueEnv } from '../support/redis-env.js';
import { testApps } from '../support/signature-routes.js';

const PER_APP = 2;

const STORES = [
  { store: 'memory', env: (): Record<string, string> => ({}) },
  ...(redisUrl()
    ? [
        {
          store: 'redis',
          env: (): Record<string, string> => ({
            REDIS_URL: redisUrl(),
            RAMPART_ENV: uniqueEnv('conc'),
            REDIS_COMMAND_TIMEOUT_MS: '2000',
          }),
        },
      ]
    : []),
];

/** The shipped inference rules, with the shipped per-app concurrency rule at PER_APP (it must be there). */
function withSmallConcurrency(c: RampartConfig): RampartConfig {
  const inference = c.policies.inference!;
  const rl = inference.locks.rateLimit as unknown as { mode: 'enforce'; rules: RuleConfig[] };
  const rules = rl.rules.map((r) =>
    r.name === 'app-concurrent' ? { ...r, capacity: PER_APP } : r,
  );
  if (!rules.some((r) => r.name === 'app-concurrent' && r.algorithm === 'concurrency'))
    throw new Error('the shipped inference policy has no app-concurrent rule');
  return {
    ...c,
    policies: {
      ...c.policies,
      inference: { ...inference, locks: { ...inference.locks, rateLimit: { ...rl, rules } } },
    },
  };
}

describe.each(ADAPTERS.flatMap((adapter) => STORES.map((s) => ({ adapter, ...s }))))(
  'concurrency limits and stream limits ($adapter, $store store)',
  { concurrent: true },
  ({ adapter, env }) => {
    const apps = testApps();
    const secrets: Record<string, string> = {
      [apps.main.appId]: apps.main.secrets[0]!,
      [apps.debug.appId]: apps.debug.secret,
    };
    let fake: FakeOpenAI;
    let app: RunningApp;

    beforeAll(async () => {
      fake = await startFakeOpenAI();
      app = await startApp(
        {
          ...env(),
          HTTP_ADAPTER: adapter,
          INFERENCE_UPSTREAM_URL: fake.url,
          APPS_FILE: apps.file,
          INFERENCE_STREAM_DRAIN_TIMEOUT_MS: '300',
          INFERENCE_STREAM_MAX_DURATION_MS: '4000',
        },
        { search: 'empty', config: withSmallConcurrency },
      );
    });
    afterAll(async () => {
      await app?.close();
      await fake?.close();
    });

    /**
     * A signed streamed completion by `appId` over node:http: its status and headers, the body unread (a client
     * that does not read stops reading its socket once its buffer is full), and a way to hang up.
     */
    const stream = (appId: string, maxTokens = 16) => {
      const url = `${app.url}/v1/chat/completions`;
      const body = JSON.stringify({
        model: 'gpt-4o-mini',
        stream: true,
        max_tokens: maxTokens,
        messages: [{ role: 'user', content: 'hold the line' }],
      });
      const headers = signRequest({ appId, secret: secrets[appId]!, method: 'POST', url, body });
      return new Promise<{ res: IncomingMessage; hangUp: () => void; text: () => Promise<string> }>(
        (resolve, reject) => {
          const req = httpRequest(url, {
            method: 'POST',
            agent: false,
            headers: { 'content-type': 'application/json', ...headers },
          });
          req.on('response', (res) =>
            resolve({
              res,
              hangUp: () => req.destroy(),
              text: async () => {
                const parts: Buffer[] = [];
                for await (const p of res) parts.push(p as Buffer);
                return Buffer.concat(parts).toString('utf8');
              },
            }),
          );
          req.on('error', reject);
          req.end(body);
        },
      );
    };

    const cutoffs = async (reason: string): Promise<number> => {
      const m = await (await fetch(`${app.url}/metrics`)).text();
      const line = new RegExp(
        `rampart_inference_stream_cutoffs_total\\{reason="${reason}"\\} (\\d+)`,
      );
      return Number(line.exec(m)?.[1] ?? 0);
    };

    it.sequential(
      'should refuse the app past its streams in flight with 429 concurrency_limit, serve another app, and give the slots back',
      // The test's own expect: expect.poll needs to know its test while the other cases run.
      async ({ expect }) => {
        // The free app (tier ×1) holds PER_APP streams; the pro app is the other tenant.
        fake.pauseStreams();
        const held = [await stream(apps.debug.appId), await stream(apps.debug.appId)];
        expect(held.map((h) => h.res.statusCode)).toEqual([200, 200]);
        const refused = await stream(apps.debug.appId);
        expect(refused.res.statusCode).toBe(429);
        expect(refused.res.headers['retry-after']).toBe('1');
        const problem = JSON.parse(await refused.text()) as { error: { code: string } };
        expect(JSON.stringify(problem)).toContain('concurrency_limit');
        // Another app is served meanwhile.
        const other = await stream(apps.main.appId);
        expect(other.res.statusCode).toBe(200);
        other.hangUp();
        // A client that hangs up gives its slot back.
        held.pop()!.hangUp();
        await expect
          .poll(
            async () => {
              const s = await stream(apps.debug.appId);
              if (s.res.statusCode === 200) held.push(s);
              else s.hangUp();
              return s.res.statusCode;
            },
            { timeout: 5_000 },
          )
          .toBe(200);
        // A stream that ends gives its slot back.
        fake.resumeStreams();
        await Promise.all(held.map((h) => h.text()));
        const after = [await stream(apps.debug.appId), await stream(apps.debug.appId)];
        expect(after.map((h) => h.res.statusCode)).toEqual([200, 200]);
        await Promise.all(after.map((h) => h.text()));
      },
    );

    it.sequential(
      'should cut off a client that does not read and cancel its upstream call',
      // The test's own expect: expect.poll needs to know its test while the other cases run.
      async ({ expect }) => {
        fake.setEndlessStreams(1024 * 1024);
        fake.setChunkDelay(0);
        const aborted = fake.aborted;
        const before = await cutoffs('no_read');
        const idle = await stream(apps.main.appId);
        expect(idle.res.statusCode).toBe(200);
        // Never read: the socket buffers fill, no drain comes within 300 ms, the connection is cut (a paused client
        // socket does not see it until it reads again) and the upstream call is cancelled.
        await expect
          .poll(async () => [await cutoffs('no_read'), await cutoffs('max_duration')], {
            timeout: 5_000,
          })
          .toEqual([before + 1, 0]);
        await expect.poll(() => fake.aborted, { timeout: 5_000 }).toBe(aborted + 1);
        idle.hangUp();
        fake.reset();
      },
    );

    it.sequential(
      'should end a stream past its maximum duration with an error event and cancel its upstream call',
      // The test's own expect: expect.poll needs to know its test while the other cases run.
      async ({ expect }) => {
        fake.setEndlessStreams(16);
        fake.setChunkDelay(20);
        const aborted = fake.aborted;
        const s = await stream(apps.main.appId);
        expect(s.res.statusCode).toBe(200);
        const text = await s.text();
        expect(text).toContain('upstream_timeout');
        expect(text).toContain('maximum duration (4000 ms)');
        await expect.poll(() => fake.aborted, { timeout: 5_000 }).toBe(aborted + 1);
        fake.reset();
      },
    );
  },
);
