/**
 * Two instances behind a balancer that polls /health/ready, one shared
 * redis-server of the test's own, under load:
 *  - a rolling restart of one instance under a junk-query flood: the old one
 *    drains (ready 503 first), the new one gets traffic only once armed; the
 *    search backend sees at most 1.5 × p of the junk (p: the filter's target
 *    false-positive rate);
 *  - one instance killed (every connection cut, the server gone): the
 *    balancer moves on, no request is lost or answered with an undesigned 5xx;
 *  - the inference upstream hanging: answers are the breaker's designed
 *    504/503 within its timeout, never a hang.
 */
import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { drain } from '../../src/health/drain.js';
import { BloomService } from '../../src/locks/cache-shield/bloom/bloom.service.js';
import { SEARCH_BACKEND, type SearchBackend } from '../../src/search/search-backend.interface.js';
import { RunningApp, startApp } from '../support/app.js';
import { Balancer } from '../support/balancer.js';
import {
  chaosPolicies,
  fixtureSearchEnv,
  loadLoop,
  sleep,
  undesigned,
  type Sample,
} from '../support/chaos.js';
import { FakeOpenAI, startFakeOpenAI } from '../support/fake-openai.js';
import { canStartRedis } from '../support/redis-env.js';
import { RedisProcess, startRedis } from '../support/redis-server.js';

/** Target false-positive rate of the filters in these tests. */
const P = 0.01;
const JUNK = /^qqzx\d+vw$/;

describe.skipIf(!canStartRedis())('chaos: two instances behind a balancer', () => {
  let redis: RedisProcess;
  let env: Record<string, string>;
  const apps: RunningApp[] = [];
  let junkCalls = 0;

  async function instance(): Promise<RunningApp> {
    const app = await startApp(
      {
        ...env,
        REDIS_URL: redis.url,
        RAMPART_ENV: 'roll',
        REDIS_COMMAND_TIMEOUT_MS: '200',
      },
      { config: chaosPolicies },
    );
    const backend = app.app.get<SearchBackend>(SEARCH_BACKEND);
    const search = backend.search.bind(backend);
    vi.spyOn(backend, 'search').mockImplementation((q, ...rest) => {
      if (JUNK.test(q)) junkCalls++;
      return search(q, ...rest);
    });
    apps.push(app);
    return app;
  }

  beforeAll(async () => {
    redis = await startRedis();
    env = await fixtureSearchEnv();
    writeFileSync(env.CONFIG_FILE!, `search:\n  seed: none\ncacheShield:\n  targetFpRate: ${P}\n`);
  });
  afterAll(async () => {
    for (const a of apps) await a.app.close().catch(() => undefined);
    await redis?.stop();
  });

  it('should keep junk off the backend through a rolling restart (≤ 1.5 p)', async () => {
    const a = await instance();
    const b = await instance();
    await a.app.get(BloomService).ready;
    await b.app.get(BloomService).ready;
    const lb = new Balancer().start();
    lb.add('a', a.url);
    lb.add('b', b.url);
    await sleep(200);
    // A fixed list of junk queries (the filter is deterministic: so is the number of false positives).
    const N = 1_500;
    let i = 0;
    let junk = 0;
    const statuses: number[] = [];
    // The flood runs at least N queries, and on until the new instance has had its share
    // (its boot and Bloom build take longer on a busy machine); a cap keeps it bounded.
    const late: { nb?: ReturnType<Balancer['add']> } = {};
    const more = () => i < N || ((late.nb?.sent ?? 0) <= 100 && i < 20 * N);
    const flood = Promise.all(
      Array.from({ length: 6 }, async () => {
        while (more()) {
          const r = await lb.get(`/v1/search?q=qqzx${i++}vw`);
          await r.res?.arrayBuffer();
          statuses.push(r.status);
          if (r.status === 200) junk++;
        }
      }),
    );
    while (i < 300) await sleep(20);
    // Rolling restart of b: drain (ready 503 first), close, start a new b.
    await drain(b.app, { delayMs: 300, timeoutMs: 5_000 });
    lb.remove('b');
    const b2 = await instance();
    const nb = lb.add('b2', b2.url);
    late.nb = nb;
    await flood;
    lb.stop();

    expect(nb.readySince).toBeDefined();
    expect(nb.firstSent!).toBeGreaterThanOrEqual(nb.readySince!);
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
    expect(junk).toBe(i);
    expect(junk).toBeGreaterThanOrEqual(N);
    expect(nb.sent).toBeGreaterThan(100);
    expect(junkCalls).toBeLessThanOrEqual(1.5 * P * junk);
    console.info(
      `rolling restart: ${junk} junk queries answered, ${junkCalls} reached the backend (bound ${1.5 * P * junk})`,
    );
    await b2.close();
    await a.close();
  });

  it('should lose no request when one of two instances is killed', async () => {
    const a = await instance();
    const b = await instance();
    await a.app.get(BloomService).ready;
    await b.app.get(BloomService).ready;
    const lb = new Balancer().start();
    lb.add('a', a.url);
    lb.add('b', b.url);
    await sleep(200);
    const samples: Sample[] = [];
    let running = true;
    let i = 0;
    const t0 = performance.now();
    const load = Promise.all(
      Array.from({ length: 4 }, async () => {
        while (running && i < 20_000) {
          const path = i % 2 ? `/v1/search?q=paris&offset=${i % 5}` : `/v1/search?q=qqzy${i}v`;
          i++;
          const start = performance.now();
          const r = await lb.get(path);
          await r.res?.arrayBuffer();
          samples.push({
            at: start - t0,
            route: 'search',
            status: r.status,
            ms: performance.now() - start,
          });
        }
      }),
    );
    await sleep(1_000);
    // Killed: every open connection cut at once and the port closed, nothing drained.
    const server = b.app.getHttpServer() as import('node:http').Server;
    server.closeAllConnections();
    server.close();
    await sleep(1_500);
    running = false;
    await load;
    lb.stop();
    await b.app.close().catch(() => undefined);

    expect(samples.filter((s) => s.at > 1_000).length).toBeGreaterThan(20);
    expect(undesigned(samples)).toEqual([]);
    await a.close();
  });
});

describe('chaos: the inference upstream hanging under load', () => {
  let fake: FakeOpenAI;
  let app: RunningApp;
  const TIMEOUT_MS = 800;

  beforeAll(async () => {
    fake = await startFakeOpenAI();
    app = await startApp(
      { INFERENCE_UPSTREAM_URL: fake.url, ...(await fixtureSearchEnv()) },
      {
        config: (c) => {
          const out = chaosPolicies(c);
          const breaker = out.policies.inference!.locks.circuitBreaker!;
          Object.assign(breaker, {
            timeoutMs: TIMEOUT_MS,
            volumeThreshold: 4,
            resetTimeoutMs: 1_000,
          });
          return out;
        },
      },
    );
  });
  afterAll(async () => {
    await app?.close();
    await fake?.close();
  });

  it("should answer within the breaker's timeout (504, or 503 once open), then recover", async () => {
    const body = JSON.stringify({ model: 'fake-gpt', messages: [{ role: 'user', content: 'hi' }] });
    const target = {
      route: 'inference',
      url: () => `${app.url}/v1/chat/completions`,
      init: { method: 'POST', body, headers: { 'content-type': 'application/json' } },
    };
    const load = loadLoop([target], { concurrency: 4, maxMs: 20_000, pauseMs: 5 });
    await sleep(800);
    fake.setHang(true);
    await sleep(2_500);
    fake.setHang(false);
    await sleep(2_500);
    const samples = await load.stop();

    expect(undesigned(samples)).toEqual([]);
    expect(samples.filter((s) => s.ms > TIMEOUT_MS + 700)).toEqual([]);
    const during = samples.filter((s) => s.at > 900 && s.at < 3_200);
    expect(during.some((s) => s.status === 504)).toBe(true);
    // Recovered: the last second answered 200 only.
    const tail = samples.filter((s) => s.at > samples[samples.length - 1]!.at - 1_000);
    expect(tail.length).toBeGreaterThan(0);
    expect(tail.every((s) => s.status === 200)).toBe(true);
  });
});
