/**
 * Helpers of the chaos tests (test/chaos): a delaying TCP proxy, a bounded
 * load loop that records every answer with its latency, and the TTL audit.
 * Traffic goes to loopback only; every loop is bounded in count and time.
 */
import { Cluster, Redis } from 'ioredis';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { type Server, type Socket, connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RampartConfig } from '../../src/config/config.types.js';
import { SEARCH_BACKEND, type SearchBackend } from '../../src/search/search-backend.interface.js';
import { fixtureCorpus } from '../fixtures/search/fixture-corpus.js';
import { startApp } from './app.js';

/** A TCP proxy in front of a Redis that can add a delay to every chunk in both directions. */
export interface DelayProxy {
  port: number;
  setDelay(ms: number): void;
  close(): Promise<void>;
}

export async function startDelayProxy(targetPort: number): Promise<DelayProxy> {
  let delayMs = 0;
  const sockets = new Set<Socket>();
  // Chunks keep their order: each leaves at (arrival + delay), never before the one ahead of it.
  const relay = (from: Socket, to: Socket): void => {
    let last = 0;
    from.on('data', (chunk) => {
      const at = Math.max(performance.now() + delayMs, last);
      last = at;
      const wait = at - performance.now();
      if (wait <= 0) to.write(chunk);
      else setTimeout(() => to.writable && to.write(chunk), wait);
    });
    from.on('close', () => setTimeout(() => to.destroy(), Math.max(0, last - performance.now())));
    from.on('error', () => to.destroy());
  };
  const server: Server = createServer((client) => {
    const upstream = connect(targetPort, '127.0.0.1');
    sockets.add(client).add(upstream);
    client.on('close', () => sockets.delete(client));
    upstream.on('close', () => sockets.delete(upstream));
    relay(client, upstream);
    relay(upstream, client);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as { port: number }).port,
    setDelay: (ms) => void (delayMs = ms),
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}

/** One answer seen by the load loop. */
export interface Sample {
  /** ms since the loop started */
  at: number;
  route: string;
  status: number;
  /** problem `error` code, when the answer was a problem */
  error?: string;
  ms: number;
}

export interface LoadTarget {
  route: string;
  /** Full URL of the next request of this route. */
  url(i: number): string;
  init?: RequestInit;
}

/**
 * Runs `concurrency` loops over the targets (round robin) until `stop()` or
 * `maxMs`, recording each answer. A connection error is status 0.
 */
export function loadLoop(
  targets: LoadTarget[],
  opts: { concurrency: number; maxMs: number; pauseMs?: number },
) {
  const samples: Sample[] = [];
  const t0 = performance.now();
  let running = true;
  let n = 0;
  const worker = async (): Promise<void> => {
    while (running && performance.now() - t0 < opts.maxMs) {
      const i = n++;
      const target = targets[i % targets.length]!;
      const start = performance.now();
      let status = 0;
      let error: string | undefined;
      try {
        const res = await fetch(target.url(i), {
          ...target.init,
          signal: AbortSignal.timeout(30_000),
        });
        status = res.status;
        const text = await res.text();
        if (res.headers.get('content-type')?.includes('problem+json')) {
          // OpenAI-compatible paths carry OpenAI's error object in `error` and the code in `code`.
          const p = JSON.parse(text) as { error?: unknown; code?: unknown };
          error = typeof p.error === 'string' ? p.error : String(p.code);
        }
      } catch (err) {
        error = (err as Error).name;
      }
      samples.push({
        at: start - t0,
        route: target.route,
        status,
        error,
        ms: performance.now() - start,
      });
      if (opts.pauseMs) await new Promise((r) => setTimeout(r, opts.pauseMs));
    }
  };
  const done = Promise.all(Array.from({ length: opts.concurrency }, worker));
  return {
    samples,
    elapsed: () => performance.now() - t0,
    async stop(): Promise<Sample[]> {
      running = false;
      await done;
      return samples;
    },
  };
}

/** Keys (of every master) that have no TTL, among those under the `{env:service}` tag. */
export async function keysWithoutTtl(
  client: Redis | Cluster,
  match = '*',
): Promise<{ key: string; pttl: number }[]> {
  const nodes = client instanceof Cluster ? client.nodes('master') : [client];
  const out: { key: string; pttl: number }[] = [];
  for (const node of nodes) {
    let cursor = '0';
    do {
      const [next, keys] = await node.scan(cursor, 'MATCH', match, 'COUNT', 500);
      cursor = next;
      for (const key of keys) {
        const pttl = await node.pttl(key);
        if (pttl === -1) out.push({ key, pttl });
      }
    } while (cursor !== '0');
  }
  return out;
}

/** Search and search-item with generous rate limits (the chaos load is not an attack), breaker as shipped. */
export function chaosPolicies(c: RampartConfig): RampartConfig {
  const policies = structuredClone(c.policies);
  for (const name of ['search', 'search-item', 'inference']) {
    const rl = policies[name]!.locks.rateLimit as unknown as {
      rules: { capacity: number; rate?: string; algorithm?: string }[];
    };
    for (const r of rl.rules) {
      r.capacity = 1_000_000;
      // A concurrency rule has no rate (its capacity is requests in flight), a tokens rule a window instead.
      if (r.algorithm !== 'concurrency' && r.algorithm !== 'tokens') r.rate = '100000/s';
    }
  }
  // Inference without signatures: these tests are about Redis and the upstream, not signing.
  policies.inference!.locks.signature = { mode: 'off' };
  return { ...c, policies };
}

/** Statuses and problem codes each route may answer by design during a fault. */
export const DESIGNED: Record<string, (s: Sample) => boolean> = {
  search: (s) =>
    s.status === 200 ||
    (s.status === 503 && ['circuit_open', 'backend_busy'].includes(s.error ?? '')) ||
    (s.status === 504 && s.error === 'backend_timeout'),
  inference: (s) =>
    s.status === 200 ||
    (s.status === 503 && ['circuit_open', 'backend_busy'].includes(s.error ?? '')) ||
    (s.status === 504 && ['backend_timeout', 'upstream_timeout'].includes(s.error ?? '')),
};

/** Samples that break the route's design (a 5xx not designed, a connection error, an unexpected 4xx). */
export function undesigned(samples: Sample[]): Sample[] {
  return samples.filter((s) => !(DESIGNED[s.route] ?? (() => false))(s));
}

/**
 * CONFIG_FILE and SQLite path of a search index of the fixture corpus in a
 * fresh directory, written by an app of its own on memory stores (so that
 * the apps under test build their filters from it at boot).
 */
export async function fixtureSearchEnv(): Promise<Record<string, string>> {
  const dir = mkdtempSync(join(tmpdir(), 'rampart-chaos-'));
  const configFile = join(dir, 'rampart.yaml');
  writeFileSync(configFile, 'search:\n  seed: none\n');
  const env = { CONFIG_FILE: configFile, SEARCH_SQLITE_PATH: join(dir, 'search.sqlite') };
  const seeder = await startApp(env);
  try {
    await seeder.app.get<SearchBackend>(SEARCH_BACKEND).add(fixtureCorpus());
  } finally {
    await seeder.close();
  }
  return env;
}

/** Milliseconds from now until `probe` is true (polled every 20 ms), or Infinity after `maxMs`. */
export async function msUntil(
  probe: () => boolean | Promise<boolean>,
  maxMs: number,
): Promise<number> {
  const t0 = performance.now();
  while (performance.now() - t0 < maxMs) {
    if (await probe()) return performance.now() - t0;
    await new Promise((r) => setTimeout(r, 20));
  }
  return Infinity;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Sum of every series of one metric on an instance's /metrics (0 when absent). */
export async function metricSum(url: string, name: string, labels = ''): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  let sum = 0;
  for (const line of text.split('\n'))
    if (line.startsWith(`${name}{`) && line.includes(labels)) sum += Number(line.split(' ').pop());
  return sum;
}
