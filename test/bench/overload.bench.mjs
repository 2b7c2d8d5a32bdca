// bench:overload — lock 4's adaptive concurrency (docs/circuit-breaker.md#overload-control) against a
// backend whose latency rises with concurrency: it has SLOTS workers, and a call that arrives with n calls
// in flight takes BASE_MS × max(1, n ÷ SLOTS) (processor sharing, as a GPU pool behaves). Open-loop load
// (fixed arrival rate, so a slow service cannot slow the generator down) at LOAD × the backend's capacity
// (SLOTS ÷ BASE_MS), each call with a client deadline. Two runs side by side, in one process: the fixed
// bulkhead (capacity 1000, i.e. no limit in practice) and the adaptive limit. Reported: goodput (200s within
// the deadline, per second), p50/p99 of those, 503 backend_busy, late or failed calls, and the peak the
// backend saw in flight. Slow on purpose (a 500 ms backend, a few calls per second): what is measured is
// the backend's queue, not Rampart's CPU, which a busy machine would make the bottleneck instead.
// Knobs: OVERLOAD_SLOTS, OVERLOAD_BASE_MS, OVERLOAD_LOAD, OVERLOAD_DEADLINE_MS, OVERLOAD_WARM_SECONDS.
import { fork } from 'node:child_process';
import { createServer } from 'node:http';
import { startApp, table, writeConfig } from './lib.mjs';

const SLOTS = Number(process.env.OVERLOAD_SLOTS ?? 4);
const BASE_MS = Number(process.env.OVERLOAD_BASE_MS ?? 500);
const LOAD = Number(process.env.OVERLOAD_LOAD ?? 2);
const DEADLINE_MS = Number(process.env.OVERLOAD_DEADLINE_MS ?? 4_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);

if (process.argv[2] === '--backend') {
  let inFlight = 0;
  let peak = 0;
  const srv = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      inFlight++;
      peak = Math.max(peak, inFlight);
      const ms = BASE_MS * Math.max(1, inFlight / SLOTS);
      // A caller that goes away stops its work (as Rampart's abort stops a GPU call).
      const timer = setTimeout(() => {
        res.off('close', gone);
        inFlight--;
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            id: 'chatcmpl-bench',
            object: 'chat.completion',
            created: Math.floor(Date.now() / 1000),
            model: 'fake-gpt',
            choices: [
              { index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' },
            ],
            usage: { prompt_tokens: 5, completion_tokens: 1, total_tokens: 6 },
          }),
        );
      }, ms);
      const gone = () => {
        clearTimeout(timer);
        inFlight--;
      };
      res.once('close', gone);
    });
  });
  srv.listen(0, '127.0.0.1', () =>
    process.send({ url: `http://127.0.0.1:${srv.address().port}/v1` }),
  );
  process.on('message', (m) => {
    if (m.cmd === 'peak') {
      process.send({ peak });
      peak = 0;
    } else if (m.cmd === 'stop') srv.close(() => process.exit(0));
  });
} else {
  await main();
}

async function main() {
  const backend = fork(new URL(import.meta.url).pathname, ['--backend'], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const { url: upstream } = await new Promise((r) => backend.once('message', r));
  const peak = () =>
    new Promise((r) => {
      backend.once('message', (m) => r(m.peak));
      backend.send({ cmd: 'peak' });
    });
  const rate = (LOAD * SLOTS * 1000) / BASE_MS;
  const rows = [];
  const runs = [
    ['fixed bulkhead (capacity 1000)', false],
    ['adaptive limit', { minLimit: 1, initialLimit: SLOTS, windowMs: BASE_MS, windowSamples: 5 }],
  ];
  for (const [name, adaptive] of runs) {
    const off = { mode: 'off' };
    const config = writeConfig({
      policies: {
        inference: {
          locks: {
            signature: off,
            rateLimit: off,
            cacheShield: off,
            circuitBreaker: {
              mode: 'enforce',
              backend: 'inference',
              timeoutMs: 10_000,
              volumeThreshold: 1_000_000,
              capacity: 1_000,
              adaptive,
              maxWaitMs: 0, // the excess is refused at once, as measured so far (inference ships a 5 s wait)
            },
          },
        },
      },
    });
    const app = await startApp({ CONFIG_FILE: config, INFERENCE_UPSTREAM_URL: upstream });
    try {
      await openLoop(app.url, rate, Number(process.env.OVERLOAD_WARM_SECONDS ?? 6)); // warm-up: the limit finds its level
      await peak();
      const r = await openLoop(app.url, rate, SECONDS);
      const metrics = await (await fetch(`${app.url}/metrics`)).text();
      const limit = /rampart_breaker_concurrency_limit\{backend="inference"\} (\d+)/.exec(metrics);
      rows.push({
        run: name,
        ...r,
        'backend peak in flight': await peak(),
        'limit at end': limit ? Number(limit[1]) : '—',
      });
    } finally {
      await app.stop();
    }
  }
  backend.send({ cmd: 'stop' });
  console.log(
    `\nbench:overload — backend ${SLOTS} slots × ${BASE_MS} ms (capacity ${(SLOTS * 1000) / BASE_MS}/s), ` +
      `open-loop ${rate}/s (${LOAD}×) for ${SECONDS} s, deadline ${DEADLINE_MS} ms\n`,
  );
  table(rows);
  const [fixed, adaptive] = rows;
  console.log(
    `\nadaptive ÷ fixed: goodput ${(adaptive['goodput/s'] / Math.max(fixed['goodput/s'], 1e-9)).toFixed(2)}×, ` +
      `p99 ${(adaptive['p99 ms'] / Math.max(fixed['p99 ms'], 1e-9)).toFixed(2)}×`,
  );
}

/** Sends `rate` calls per second for `seconds`, whatever the answers; each with a deadline. */
async function openLoop(url, rate, seconds) {
  const body = JSON.stringify({
    model: 'gpt-4o-mini',
    messages: [{ role: 'user', content: 'hi' }],
  });
  const ok = [];
  let busy = 0;
  let lost = 0;
  const calls = [];
  const t0 = performance.now();
  const total = Math.round(rate * seconds);
  for (let i = 0; i < total; i++) {
    const due = t0 + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    const start = performance.now();
    calls.push(
      fetch(`${url}/v1/inference`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
        signal: AbortSignal.timeout(DEADLINE_MS),
      }).then(
        async (res) => {
          await res.arrayBuffer();
          const ms = performance.now() - start;
          if (res.status === 200 && ms <= DEADLINE_MS) ok.push(ms);
          else if (res.status === 503) busy++;
          else lost++;
        },
        () => lost++,
      ),
    );
  }
  await Promise.all(calls);
  ok.sort((a, b) => a - b);
  const q = (p) =>
    ok.length ? Math.round(ok[Math.min(ok.length - 1, Math.floor(p * ok.length))]) : NaN;
  return {
    'goodput/s': Math.round(ok.length / seconds),
    'p50 ms': q(0.5),
    'p99 ms': q(0.99),
    '503 busy': busy,
    'late or failed': lost,
  };
}
