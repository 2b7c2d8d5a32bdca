// Runs test/support/fake-openai.ts (the tests' fake OpenAI-compatible upstream)
// as its own process for the benchmarks, so it does not share an event loop
// with autocannon. TypeScript is transpiled on the fly (the file imports only
// node built-ins). Prints `{"url": …}` as one JSON line on stdout when ready;
// switches come from the environment: FAKE_LATENCY_MS, FAKE_CHUNK_DELAY_MS.
// FAKE_SLOTS=<n> makes it a backend with n slots: a call that arrives with k calls in flight waits
// FAKE_LATENCY_MS × factor × max(1, k ÷ n) (processor sharing, as a GPU pool behaves), and a control
// server (its URL is `control` in the ready line) answers GET /factor?x=10 (slow down 10×),
// /endless?chars=1024 (streams never end: slow readers hold their call) and /stats?reset=1 (&loop=1: its own
// event-loop delay, loopP99 and loopMax in ms, counted afresh)
// (calls, p50/p99/max latency given, peak calls in flight since the last reset, in flight now).
//
// From a benchmark: `const fake = await spawnFakeOpenAI({ FAKE_CHUNK_DELAY_MS: '0' })`.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

const ROOT = new URL('../../', import.meta.url).pathname;

/** Imports test/support/fake-openai.ts (and the local module it imports), transpiled to temporary .mjs files. */
export async function importFakeOpenAI() {
  const ts = (await import('typescript')).default;
  const dir = mkdtempSync(join(tmpdir(), 'rampart-fake-openai-'));
  for (const name of ['fake-openai', 'listener-watch']) {
    const source = readFileSync(join(ROOT, `test/support/${name}.ts`), 'utf8');
    const { outputText } = ts.transpileModule(source, {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
    });
    // `./listener-watch.js` → the transpiled neighbour.
    writeFileSync(
      join(dir, `${name}.mjs`),
      outputText.replaceAll("'./listener-watch.js'", "'./listener-watch.mjs'"),
    );
  }
  return import(join(dir, 'fake-openai.mjs'));
}

/** Starts the fake upstream in a child process; resolves with `{ url, pid, stop() }`. */
export async function spawnFakeOpenAI(env = {}) {
  const child = spawn(process.execPath, [new URL(import.meta.url).pathname, '--serve'], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const line = await new Promise((resolve, reject) => {
    createInterface({ input: child.stdout }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`fake upstream exited with ${code}`)));
  });
  const { url, control } = JSON.parse(line);
  return {
    url,
    control,
    pid: child.pid,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', resolve);
        child.kill('SIGTERM');
      }),
  };
}

if (process.argv[2] === '--serve') {
  const { startFakeOpenAI } = await importFakeOpenAI();
  const fake = await startFakeOpenAI();
  const base = Number(process.env.FAKE_LATENCY_MS ?? 0);
  fake.setChunkDelay(Number(process.env.FAKE_CHUNK_DELAY_MS ?? 0));
  const control = process.env.FAKE_SLOTS
    ? await slotted(fake, base, Number(process.env.FAKE_SLOTS))
    : undefined;
  if (!control) fake.setLatency(base);
  process.once('SIGTERM', () => fake.close().then(() => process.exit(0)));
  console.log(JSON.stringify({ url: fake.url, control }));
}

/** The FAKE_SLOTS latency model and its control server; resolves with the control URL. */
async function slotted(fake, base, slots) {
  const { createServer } = await import('node:http');
  let factor = 1;
  let given = [];
  let peak = 0;
  // The fake's own event-loop delay: a late answer of a busy fake is the bench's machine, not the backend's model.
  const { monitorEventLoopDelay } = await import('node:perf_hooks');
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  fake.setLatency((inFlight) => {
    peak = Math.max(peak, inFlight);
    const ms = base * factor * Math.max(1, inFlight / slots);
    given.push(ms);
    return ms;
  });
  const q = (xs, p) => xs[Math.min(xs.length - 1, Math.floor(p * xs.length))] ?? 0;
  const srv = createServer((req, res) => {
    const u = new URL(req.url, 'http://x');
    let body = { ok: true };
    if (u.pathname === '/factor') {
      factor = Number(u.searchParams.get('x'));
      // When the backend's speed changed, by its own clock (wall-clock epoch ms): the bench's slow window.
      body = { ok: true, at: performance.timeOrigin + performance.now() };
    } else if (u.pathname === '/endless')
      fake.setEndlessStreams(Number(u.searchParams.get('chars')));
    else if (u.pathname === '/stats') {
      const s = [...given].sort((a, b) => a - b);
      body = {
        calls: s.length,
        p50: q(s, 0.5),
        p99: q(s, 0.99),
        max: s.at(-1) ?? 0,
        peak,
        inFlight: fake.inFlight,
        loopP99: loop.percentile(99) / 1e6,
        loopMax: loop.max / 1e6,
      };
      if (u.searchParams.get('reset')) [given, peak] = [[], fake.inFlight];
      if (u.searchParams.get('loop')) loop.reset();
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  });
  await new Promise((r) => srv.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${srv.address().port}`;
}
