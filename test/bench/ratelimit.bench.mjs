// bench: ratelimit — our 3-dimension rule set (one Lua call) vs rate-limiter-flexible
// RateLimiterRedis (1 key) vs @nestjs/throttler with a Redis storage, all on ONE private
// redis-server and in ONE app process per adapter (same Nest, same middleware), side by side.
// Our rule set runs twice: through @Protect (the chain's guard + interceptor, as in the product)
// and as a plain guard calling the same lock (like-for-like with rate-limiter-flexible's guard).
// Then a flood: one key far over its limit — Redis calls per rejected request and rejected
// req/s vs the bare route. Run `npm run build` first (bench servers import dist/).
//
// The throttler storage is written here (TinyThrottlerStorage, ~20 lines): the same fixed
// window + block key as @nest-lab/throttler-storage-redis, sent by EVALSHA (nest-lab sends the
// whole script with EVAL each call, which would only make the comparison kinder to us).
import { spawn } from 'node:child_process';
import {
  ROOT,
  cannon,
  cpuMicros,
  freePort,
  startRedis,
  summary,
  table,
  SECONDS,
  CONNECTIONS,
} from './lib.mjs';

const HUGE = 1_000_000_000;

async function serve() {
  const { Controller, Get, Injectable, Module, UseGuards, HttpException } =
    await import('@nestjs/common');
  const { ThrottlerGuard, ThrottlerModule } = await import('@nestjs/throttler');
  const { RateLimiterRedis } = await import('rate-limiter-flexible');
  const { Redis } = await import('ioredis');
  const { createApp } = await import(`${ROOT}dist/src/app.factory.js`);
  const { loadAppConfig } = await import(`${ROOT}dist/src/app.config.js`);
  const { Protect } = await import(`${ROOT}dist/src/chain/protect.decorator.js`);
  const { RateLimitLock } = await import(`${ROOT}dist/src/locks/rate-limit/rate-limit.lock.js`);
  const { requestState } = await import(`${ROOT}dist/src/http/http-context.js`);

  const client = new Redis(process.env.REDIS_URL, {
    enableOfflineQueue: true,
    maxRetriesPerRequest: 0,
  });
  const rlf = new RateLimiterRedis({
    storeClient: client,
    points: HUGE,
    duration: 60,
    keyPrefix: 'rlf',
  });

  class RlfGuard {
    async canActivate(ctx) {
      const req = ctx.switchToHttp().getRequest();
      try {
        await rlf.consume(req.ip ?? req.socket?.remoteAddress ?? 'x', 1);
        return true;
      } catch (e) {
        if (e instanceof Error) throw e;
        throw new HttpException('Too Many Requests', 429);
      }
    }
  }
  Injectable()(RlfGuard);

  // The same lock and rule set as /bench/rampart, called from a plain guard like rate-limiter-flexible's:
  // separates what the rate limiter costs from what the @Protect chain (one guard + one interceptor) costs.
  const lockGuard = { lock: undefined, slice: undefined, policy: undefined };
  class LockGuard {
    async canActivate(ctx) {
      const http = ctx.switchToHttp();
      const req = http.getRequest();
      await lockGuard.lock.check(
        {
          req,
          reply: http.getResponse(),
          state: requestState(req),
          policyName: 'bench-rl',
          policy: lockGuard.policy,
          route: '/bench/lock',
          mode: 'enforce',
        },
        lockGuard.slice,
      );
      return true;
    }
  }
  Injectable()(LockGuard);

  client.defineCommand('throttlerIncr', {
    numberOfKeys: 2,
    lua: `local hits = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]); ttl = tonumber(ARGV[1]) end
local blocked = redis.call('PTTL', KEYS[2])
if blocked <= 0 and hits > tonumber(ARGV[2]) then redis.call('SET', KEYS[2], '1', 'PX', ARGV[3]); blocked = tonumber(ARGV[3]) end
return { hits, ttl, blocked > 0 and 1 or 0, blocked > 0 and blocked or 0 }`,
  });
  const tinyStorage = {
    async increment(key, ttl, limit, blockDuration, name) {
      const [hits, ttlMs, isBlocked, blockMs] = await client.throttlerIncr(
        `{${key}:${name}}:hits`,
        `{${key}:${name}}:blocked`,
        ttl,
        limit,
        blockDuration || ttl,
      );
      return {
        totalHits: hits,
        timeToExpire: Math.ceil(ttlMs / 1000),
        isBlocked: isBlocked === 1,
        timeToBlockExpire: Math.ceil(blockMs / 1000),
      };
    },
  };

  class BenchController {
    bare() {
      return { ok: true };
    }
    rampart() {
      return { ok: true };
    }
    rlf() {
      return { ok: true };
    }
    throttler() {
      return { ok: true };
    }
    flood() {
      return { ok: true };
    }
    chain() {
      return { ok: true };
    }
    lock() {
      return { ok: true };
    }
  }
  Controller('bench')(BenchController);
  const route = (name, ...decorators) => {
    const d = Object.getOwnPropertyDescriptor(BenchController.prototype, name);
    for (const dec of [Get(name), ...decorators]) dec(BenchController.prototype, name, d);
  };
  route('bare');
  route('rampart', Protect('bench-rl'));
  route('rlf', UseGuards(RlfGuard));
  route('throttler', UseGuards(ThrottlerGuard));
  route('flood', Protect('bench-flood'));
  route('chain', Protect('bench-off'));
  route('lock', UseGuards(LockGuard));

  class BenchModule {}
  Module({
    imports: [
      ThrottlerModule.forRoot({ throttlers: [{ ttl: 60_000, limit: HUGE }], storage: tinyStorage }),
    ],
    controllers: [BenchController],
    providers: [RlfGuard, LockGuard],
  })(BenchModule);

  const config = loadAppConfig(process.env);
  // Only the bench policies run a lock: the shipped ones (required by their routes) are switched off here,
  // so the numbers do not depend on the other locks' defaults.
  for (const p of Object.values(config.policies)) p.locks = {};
  const only = (slice) => ({ locks: { rateLimit: slice } });
  config.policies['bench-rl'] = only({
    mode: 'enforce',
    failMode: 'open',
    rules: [
      { name: 'per-ip', dimension: 'ip', capacity: HUGE, rate: 1_000_000 },
      { name: 'per-user', dimension: 'user', capacity: HUGE, rate: 1_000_000 },
      { name: 'global', dimension: 'global', capacity: HUGE, rate: 1_000_000 },
    ],
  });
  config.policies['bench-off'] = only({ mode: 'off' });
  config.policies['bench-flood'] = only({
    mode: 'enforce',
    failMode: 'open',
    rules: [{ name: 'per-ip', dimension: 'ip', capacity: 10, rate: 1 }],
  });
  config.sections = { ...config.sections, rateLimit: { userHeader: 'x-user-id' } };
  const app = await createApp(config, { imports: [BenchModule] });
  Object.assign(lockGuard, {
    lock: app.get(RateLimitLock),
    policy: config.policies['bench-rl'],
    slice: config.policies['bench-rl'].locks.rateLimit,
  });
  await app.listen(config.port, config.host);
  process.stdout.write('ready\n');
}

async function startServer(adapter, redis) {
  const port = await freePort();
  const child = spawn(process.execPath, [new URL(import.meta.url).pathname, '--serve'], {
    cwd: ROOT,
    env: {
      ...process.env,
      NODE_ENV: 'production',
      LOG_LEVEL: 'error',
      HOST: '127.0.0.1',
      PORT: String(port),
      HTTP_ADAPTER: adapter,
      REDIS_URL: redis.url,
      RAMPART_ENV: 'bench',
      REDIS_COMMAND_TIMEOUT_MS: process.env.REDIS_COMMAND_TIMEOUT_MS ?? '1000',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise((resolve, reject) => {
    child.once('exit', (c) => reject(new Error(`bench server exited with ${c}`)));
    child.stdout.on('data', (b) => b.toString().includes('ready') && resolve());
  });
  return {
    url: `http://127.0.0.1:${port}`,
    pid: child.pid,
    stop: () =>
      new Promise((r) => {
        child.removeAllListeners('exit');
        child.once('exit', r);
        child.kill('SIGTERM');
      }),
  };
}

const scriptStats = (redis) => {
  const s = redis.commandstats();
  const pick = (n) => s[n] ?? { calls: 0, usec: 0 };
  const calls = pick('evalsha').calls + pick('eval').calls;
  return {
    calls,
    usec: pick('evalsha').usec + pick('eval').usec,
    all: Object.values(s).reduce((a, c) => a + c.calls, 0),
  };
};

/** Rounds per variant, interleaved; the median round (by req/s) is reported. The machine is shared: medians of interleaved rounds keep ratios honest. */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

/** Sum of a Prometheus counter over all its series, from the app's /metrics. */
async function counterSum(server, name) {
  const text = await (await fetch(`${server.url}/metrics`)).text();
  let sum = 0;
  for (const line of text.split('\n'))
    if (line.startsWith(name)) sum += Number(line.slice(line.lastIndexOf(' ') + 1));
  return sum;
}

async function run(server, redis, path, headers, warm = true) {
  if (warm) await cannon({ url: `${server.url}${path}`, headers, duration: Math.min(3, SECONDS) });
  redis.cli('CONFIG', 'RESETSTAT');
  const fallbacks0 = await counterSum(server, 'rampart_ratelimit_fallback_total');
  const decides0 = await counterSum(
    server,
    'rampart_redis_script_seconds_count{script="ratelimit_decide"}',
  );
  const redisCpu0 = cpuMicros(redis.pid);
  const nodeCpu0 = cpuMicros(server.pid);
  const res = await cannon({ url: `${server.url}${path}`, headers });
  const redisCpu = cpuMicros(redis.pid) - redisCpu0;
  const nodeCpu = cpuMicros(server.pid) - nodeCpu0;
  const st = scriptStats(redis);
  const total = res.requests.total;
  // Decisions that did not come from Redis (timeouts under load → failMode): shown, so no number hides them.
  const fallbacks = (await counterSum(server, 'rampart_ratelimit_fallback_total')) - fallbacks0;
  // Decision-script calls as the app counts them (INFO commandstats also sees heartbeats and other modules' scripts).
  const decides =
    (await counterSum(server, 'rampart_redis_script_seconds_count{script="ratelimit_decide"}')) -
    decides0;
  return { res, total, st, redisCpu, nodeCpu, fallbacks, decides };
}

async function main() {
  console.log(
    `bench:ratelimit — autocannon ${CONNECTIONS} connections, ${SECONDS} s per run, ${ROUNDS} interleaved rounds (median shown) after a warm-up; one private redis-server; same app process per adapter`,
  );
  const redis = await startRedis();
  const rows = [];
  const flood = [];
  try {
    for (const adapter of (process.env.BENCH_ADAPTERS ?? 'express,fastify').split(',')) {
      const server = await startServer(adapter, redis);
      try {
        const headers = { 'x-user-id': 'bench-user' };
        const results = {};
        const variants = [
          ['bare (no limiter)', '/bench/bare'],
          ['@Protect chain, rate limit off', '/bench/chain'],
          ['rampart 3 rules (ip+user+global)', '/bench/rampart'],
          ['rampart 3 rules, lock as a plain guard', '/bench/lock'],
          ['rate-limiter-flexible 1 key', '/bench/rlf'],
          ['@nestjs/throttler + redis storage', '/bench/throttler'],
        ];
        const rounds = Object.fromEntries(variants.map(([v]) => [v, []]));
        for (const [, path] of variants)
          await cannon({ url: `${server.url}${path}`, headers, duration: Math.min(3, SECONDS) });
        for (let round = 0; round < ROUNDS; round++) {
          for (const [variant, path] of variants)
            rounds[variant].push(await run(server, redis, path, headers, false));
        }
        for (const [variant] of variants) {
          const sorted = rounds[variant].sort(
            (x, y) => x.res.requests.average - y.res.requests.average,
          );
          const r = sorted[Math.floor(sorted.length / 2)];
          results[variant] = r;
          rows.push({
            adapter,
            variant,
            ...summary(r.res),
            'script µs/decision': r.st.calls ? +(r.st.usec / r.total).toFixed(2) : 0,
            'redis cmds/req': +(r.st.all / r.total).toFixed(2),
            'redis proc CPU µs/req': +(r.redisCpu / r.total).toFixed(1),
            'node CPU µs/req': +(r.nodeCpu / r.total).toFixed(1),
            'store fallbacks': r.fallbacks,
          });
        }
        const ours = results['rampart 3 rules (ip+user+global)'].res.requests.average;
        const rlfRps = results['rate-limiter-flexible 1 key'].res.requests.average;
        for (const row of rows.filter((x) => x.adapter === adapter))
          row['÷ rlf'] = +(row.reqPerSec / rlfRps).toFixed(2);
        const lockOnly = results['rampart 3 rules, lock as a plain guard'].res.requests.average;
        console.log(
          `${adapter}: ours ÷ rate-limiter-flexible = ${(ours / rlfRps).toFixed(2)}× through @Protect, ${(lockOnly / rlfRps).toFixed(2)}× as a plain guard like rate-limiter-flexible's`,
        );

        const f = await run(server, redis, '/bench/flood', headers);
        const rejected = f.res.non2xx;
        const bare = results['bare (no limiter)'].res.requests.average;
        flood.push({
          adapter,
          'req/s': Math.round(f.res.requests.average),
          rejected,
          'rejected req/s': Math.round(rejected / SECONDS),
          'decision calls to redis': f.decides,
          'redis calls / rejected': +(f.decides / Math.max(1, rejected)).toFixed(5),
          '÷ bare route req/s': +(f.res.requests.average / bare).toFixed(2),
          admitted: f.total - rejected,
          'store fallbacks': f.fallbacks,
          p99: f.res.latency.p99,
        });
      } finally {
        await server.stop();
      }
    }
  } finally {
    await redis.stop();
  }
  console.log('\nThroughput (nothing rejected; limits 1e9):');
  table(rows);
  console.log('\nFlood (one IP, capacity 10, 1/s — nearly everything is refused):');
  table(flood);
}

if (process.argv[2] === '--serve') await serve();
else await main();
