/**
 * One listener per concern on a response (no MaxListenersExceededWarning): a long streamed completion read by a
 * slow client, through a policy with four concurrency rules (each request holds four leases) and stream limits,
 * on both adapters and both stores. The app's responses and the fake upstream's responses are watched
 * (test/support/listener-watch.ts): the most close/error/drain listeners one response held stays a small
 * constant however many times the stream waited for a drain.
 */
import { request as httpRequest, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RampartConfig } from '../../src/config/config.types.js';
import type { RuleConfig } from '../../src/locks/rate-limit/rate-limit.types.js';
import { signRequest } from '../../src/sdk/sign-request.js';
import { ADAPTERS, RunningApp, startApp } from '../support/app.js';
import { FakeOpenAI, startFakeOpenAI } from '../support/fake-openai.js';
import { type ListenerWatch, watchListeners } from '../support/listener-watch.js';
import { redisUrl, uniqueEnv } from '../support/redis-env.js';
import { testApps } from '../support/signature-routes.js';

/** Node warns from 11 listeners of one event; a response of ours needs a handful at most. */
const MOST = 6;

const STORES = [
  { store: 'memory', env: (): Record<string, string> => ({}) },
  ...(redisUrl()
    ? [
        {
          store: 'redis',
          env: (): Record<string, string> => ({
            REDIS_URL: redisUrl(),
            RAMPART_ENV: uniqueEnv('lsn'),
            REDIS_COMMAND_TIMEOUT_MS: '2000',
          }),
        },
      ]
    : []),
];

/**
 * The shipped inference rules plus a per-address and a global concurrency rule: four leases per request. The
 * token budgets are left out: the endless fake streams far past `max_tokens`, and what was streamed is charged.
 */
function moreLeases(c: RampartConfig): RampartConfig {
  const inference = c.policies.inference!;
  const rl = inference.locks.rateLimit as unknown as { mode: 'enforce'; rules: RuleConfig[] };
  const extra: RuleConfig[] = [
    { name: 'ip-concurrent', dimension: 'ip', algorithm: 'concurrency', capacity: 8 },
    { name: 'all-concurrent', dimension: 'global', algorithm: 'concurrency', capacity: 100 },
  ] as RuleConfig[];
  const rules = [...rl.rules.filter((r) => r.algorithm !== 'tokens'), ...extra];
  return {
    ...c,
    policies: {
      ...c.policies,
      inference: { ...inference, locks: { ...inference.locks, rateLimit: { ...rl, rules } } },
    },
  };
}

describe.each(ADAPTERS.flatMap((adapter) => STORES.map((s) => ({ adapter, ...s }))))(
  'listeners on a streamed response ($adapter, $store store)',
  ({ adapter, env }) => {
    const apps = testApps();
    let fake: FakeOpenAI;
    let app: RunningApp;
    let watch: ListenerWatch;
    const warnings: string[] = [];
    const onWarning = (w: Error): void => void warnings.push(`${w.name}: ${w.message}`);

    beforeAll(async () => {
      fake = await startFakeOpenAI();
      app = await startApp(
        {
          ...env(),
          HTTP_ADAPTER: adapter,
          INFERENCE_UPSTREAM_URL: fake.url,
          APPS_FILE: apps.file,
          INFERENCE_STREAM_DRAIN_TIMEOUT_MS: '5000',
          INFERENCE_STREAM_MAX_DURATION_MS: '60000',
        },
        { search: 'empty', config: moreLeases },
      );
      watch = watchListeners(app.app.getHttpServer() as Server);
      process.on('warning', onWarning);
    });
    afterAll(async () => {
      process.off('warning', onWarning);
      await app?.close();
      await fake?.close();
    });

    /** Reads `bytes` of a signed endless stream a chunk at a time, yielding between chunks, then hangs up. */
    const readSlowly = (bytes: number): Promise<number> => {
      const url = `${app.url}/v1/chat/completions`;
      const body = JSON.stringify({
        model: 'gpt-4o-mini',
        stream: true,
        max_tokens: 16,
        messages: [{ role: 'user', content: 'a long answer please' }],
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
          if (res.statusCode !== 200) return reject(new Error(`status ${res.statusCode}`));
          let read = 0;
          res.on('data', (chunk: Buffer) => {
            read += chunk.length;
            if (read >= bytes) {
              req.destroy();
              resolve(read);
              return;
            }
            // A slow reader: the socket is paused after every chunk, so both sides keep filling their buffers.
            res.pause();
            setImmediate(() => res.resume());
          });
        });
        req.on('error', (e) => (req.destroyed ? undefined : reject(e)));
        req.end(body);
      });
    };

    it('should keep one listener per concern on the responses of a long stream held by four leases', async () => {
      fake.setEndlessStreams(64 * 1024);
      fake.setChunkDelay(0);
      const aborted = fake.aborted;
      expect(await readSlowly(32 * 1024 * 1024)).toBeGreaterThanOrEqual(32 * 1024 * 1024);
      await expect.poll(() => fake.aborted, { timeout: 5_000 }).toBe(aborted + 1);
      fake.reset();
      expect(watch.responses).toBeGreaterThanOrEqual(1);
      for (const w of [watch, fake.listeners])
        for (const n of Object.values(w.max)) expect(n).toBeLessThanOrEqual(MOST);
      expect(warnings.filter((w) => w.includes('MaxListeners'))).toEqual([]);
    });

    it('should give the four leases back: the next streams are served', async () => {
      fake.setEndlessStreams(64 * 1024);
      fake.setChunkDelay(0);
      for (let i = 0; i < 3; i++) await readSlowly(1024 * 1024);
      fake.reset();
      for (const n of Object.values(watch.max)) expect(n).toBeLessThanOrEqual(MOST);
    });
  },
);
