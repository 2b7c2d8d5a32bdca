// bench:attack's well-behaved clients: what each sends, and the paced loop that sends it. The bench runs the
// loop in a worker thread of its own (its own event loop: the attackers are in other worker threads, the
// main thread only watches), and measures that thread's own event-loop delay, so a late client is seen.
import { subscribe } from 'node:diagnostics_channel';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Agent, fetch as undiciFetch } from 'undici';

export const CITIES = [
  'paris',
  'london',
  'berlin',
  'tokyo',
  'lagos',
  'lima',
  'oslo',
  'cairo',
  'delhi',
];
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
/** Wall-clock epoch ms, comparable across threads and processes (the instances' traces use it too). */
export const wall = () => performance.timeOrigin + performance.now();

export const CHAT = (client, i) =>
  JSON.stringify({
    model: 'gpt-4o-mini',
    messages: [{ role: 'user', content: `client ${client} asks question ${i}` }],
    max_tokens: 16,
  });

/** What a well-behaved client sends: signed, from its own address (`xff`); `id` tags it for the traces. */
export function wellBehavedRequest(
  sign,
  client,
  i,
  xff = `10.1.${client >> 8}.${client & 255}`,
  id,
) {
  const headers = { 'x-forwarded-for': xff, ...(id ? { 'x-request-id': id } : {}) };
  if (i % 2 === 0) {
    const path = `/v1/search?q=${CITIES[(client + i) % CITIES.length]}&limit=5`;
    return { route: 'search', method: 'GET', path, headers: { ...headers, ...sign('GET', path) } };
  }
  const body = CHAT(client, i);
  const path = '/v1/chat/completions';
  const h = { ...headers, 'content-type': 'application/json', ...sign('POST', path, body) };
  return { route: 'inference', method: 'POST', path, body, headers: h };
}

/**
 * When each well-behaved request's headers went to its socket (undici's own channel, the fetch of this thread),
 * by X-Request-Id: `at` → `w` is this thread's own wait to write, `w` → the instance's read its socket queue.
 * An entry leaves when its request is recorded (wellBehaved), so the map holds only requests in flight.
 */
const written = new Map();
subscribe('undici:client:sendHeaders', ({ headers }) => {
  const id =
    typeof headers === 'string' ? /x-request-id: (wb-[^\r\n]+)/i.exec(headers)?.[1] : undefined;
  if (id) written.set(id, wall());
});

/**
 * One request; `dispatcher` (an undici Agent): the client's own connections, else the thread's shared pool
 * (Node's global fetch).
 */
export async function send(base, r, dispatcher) {
  const t0 = performance.now();
  let status = 0;
  let text = '';
  try {
    const init = {
      method: r.method,
      headers: r.headers,
      body: r.body,
      signal: AbortSignal.timeout(10_000),
    };
    const res = await (dispatcher
      ? undiciFetch(base + r.path, { ...init, dispatcher })
      : fetch(base + r.path, init));
    text = await res.text();
    status = res.status;
  } catch {
    status = 0;
  }
  return { status, ms: performance.now() - t0, text };
}

/**
 * Each well-behaved client keeps its own connection (an undici Agent of one connection, kept alive between its
 * paced requests), as distinct users do. ATTACK_SHARED_POOL=1: all share the thread's one pool instead, which
 * opens new connections whenever more requests are in flight at once — as at an attack's start, where they wait
 * in the instance's accept queue (libuv accepts one connection per loop turn).
 */
const SHARED_POOL = process.env.ATTACK_SHARED_POOL === '1';
const agents = new Map();
const agentOf = (client) => {
  if (SHARED_POOL) return undefined;
  let a = agents.get(client);
  if (!a) agents.set(client, (a = new Agent({ connections: 1, keepAliveTimeout: 60_000 })));
  return a;
};

/**
 * The clients for `seconds`: each paced (one request every `paceMs`), alternating search and inference.
 * Every request is recorded: route, status, id, `at` (wall-clock ms when it was sent), `ms` (until its answer
 * was read), `late` (ms its send was behind its schedule: this thread's own delay). `loop`: this thread's
 * event-loop delay per second (p99, max, ms).
 */
export async function wellBehaved({ urls, signers, seconds, paceMs, count, tag }) {
  const until = performance.now() + seconds * 1000;
  const requests = [];
  const examples = {};
  const loop = [];
  const h = monitorEventLoopDelay({ resolution: 10 });
  h.enable();
  const timer = setInterval(() => {
    loop.push({ at: wall(), p99: h.percentile(99) / 1e6, max: h.max / 1e6 });
    h.reset();
  }, 1000);
  const clients = Array.from({ length: count }, async (_, client) => {
    const base = urls[client % urls.length];
    let next = performance.now() + (client * paceMs) / count; // starts spread over one pace interval
    await sleep(next - performance.now());
    for (let i = 0; performance.now() < until; i++) {
      const id = `wb-${tag}-${client}-${i}`;
      const r = wellBehavedRequest(signers[client], client, i, undefined, id);
      const late = Math.max(0, performance.now() - next);
      const at = wall();
      const { status, ms, text } = await send(base, r, agentOf(`${client} ${base}`));
      const w = written.get(id);
      written.delete(id);
      requests.push({ route: r.route, status, id, at, ms, late, w });
      if ((status < 200 || status >= 300) && !examples[`${r.route} ${status}`])
        examples[`${r.route} ${status}`] = text.slice(0, 200);
      // Its own cadence: the next slot of its own grid, sent at once when that slot has just passed, and the slots
      // it missed by more than one interval skipped. It never re-phases to the moment its answer came: that lined
      // clients up behind any stall (answers freed together, sent again together), so the attack phase's requests
      // came in bursts of 3–10 in the same 2 ms where the calm phases' came one by one.
      next += paceMs;
      const behind = performance.now() - next;
      if (behind > paceMs) next += Math.floor(behind / paceMs) * paceMs;
      await sleep(next - performance.now());
    }
  });
  await Promise.all(clients);
  clearInterval(timer);
  h.disable();
  return { requests, examples, loop };
}
