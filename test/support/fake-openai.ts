/**
 * A fake OpenAI-compatible upstream for tests and benchmarks: a real
 * `node:http` server whose behaviour is switched at run time.
 *
 *   const fake = await startFakeOpenAI();
 *   startApp({ INFERENCE_UPSTREAM_URL: fake.url });   // url ends in /v1
 *   fake.setLatency(200);      // wait 200 ms before answering
 *   fake.setErrorRate(0.5);    // half of the calls answer 500
 *   fake.setHang(true);        // accept calls and never answer
 *   const release = fake.holdAnswers(); // calls wait (before their latency) until release()
 *   fake.setStatus(429);       // answer every call with 429 (+ OpenAI error body)
 *   fake.setRetryAfter('30');  // the Retry-After of those 429s (default '1'; undefined = none)
 *   fake.openRateLimitWindow(2); // strict, as the real API: every chat call answers 429 (Retry-After: 2,
 *                                // counted) until fake.closeRateLimitWindow()
 *   fake.setFailAfterFirstChunk(true);  // streams drop the connection after their first word
 *   fake.setFailAfterDone(true);  // streams drop the connection after `[DONE]`, before the body's end
 *   fake.setUsage('omit');     // answers without `usage` (JSON) and streams without the usage chunk
 *   fake.requests, fake.inFlight, fake.aborted   // what reached it
 *
 * Endpoints:
 *   POST /v1/chat/completions — a chat.completion (JSON), or with `stream: true`
 *     server-sent chat.completion.chunk events (one word per chunk, `chunkDelayMs`
 *     apart) ending in `data: [DONE]`, after a usage chunk (empty `choices`) when
 *     `stream_options.include_usage` asks for one. The answer has min(max_tokens, 8) words.
 *   GET /v1/models — `{object: 'list', data: [{id: 'fake-gpt'}]}`.
 * Switches apply to both endpoints, in this order: hang, latency, status,
 * error rate, bad JSON (a rate-limit window, to chat completions only, before them all). Anything else answers 404.
 *
 * Counters: `requests` = chat-completion calls received (`modelRequests` for
 * GET /v1/models); `inFlight` = calls not yet finished; `aborted` = calls
 * whose client went away before the answer was complete; `connections` =
 * TCP connections accepted; `rateLimited` = chat calls answered 429 inside a rate-limit window; `chatLog` = when
 * each chat call arrived (performance.now()) and whether it was answered 429 in a window.
 * `reset()` restores the switches, not the counters.
 */
import { once } from 'node:events';
import { createServer, IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type ListenerWatch, watchListeners } from './listener-watch.js';

export const FAKE_MODEL = 'fake-gpt';
const WORDS = ['This', ' is', ' a', ' fake', ' answer', ' from', ' the', ' upstream'];

export interface FakeRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: Record<string, unknown> | undefined;
}

export interface FakeOpenAI {
  /** Base URL to use as INFERENCE_UPSTREAM_URL, e.g. `http://127.0.0.1:43210/v1`. */
  readonly url: string;
  /** The most close/error/drain listeners one of its responses held at once (test/support/listener-watch.ts). */
  readonly listeners: ListenerWatch;
  /** Milliseconds to wait before answering (0 = none), or a function of the calls in flight (this one included), asked once per call. */
  setLatency(ms: number | ((inFlight: number) => number)): void;
  /** Fraction (0..1) of calls answered with 500. */
  setErrorRate(rate: number): void;
  /** When true, calls are accepted and never answered (until the client gives up). */
  setHang(on: boolean): void;
  /**
   * Calls (arrived or arriving) wait before their latency until the returned release() is called: the test, not a
   * timer, decides when they end. reset() and close() release them too.
   */
  holdAnswers(): () => void;
  /** Answer every call with this status and an OpenAI error body (undefined = normal answers). */
  setStatus(code: number | undefined): void;
  /** Retry-After header of the 429 answers (default `'1'`; undefined = none). */
  setRetryAfter(value: string | undefined): void;
  /**
   * A strict rate limit, as the real API keeps one: from now until closeRateLimitWindow(), every chat-completion call
   * answers 429 with `Retry-After: <retryAfterSeconds>` and is counted in `rateLimited` (and logged in `chatLog`).
   * Driven by the test, not by a clock. Checked before every other switch.
   */
  openRateLimitWindow(retryAfterSeconds: number): void;
  /** Ends the rate-limit window: calls are answered normally again. */
  closeRateLimitWindow(): void;
  /** When true, a stream drops its connection right after its first content chunk (a failure after the first byte). */
  setFailAfterFirstChunk(on: boolean): void;
  /**
   * When true, a stream drops its connection after its last event (`[DONE]`) reached the wire, without the end of
   * its chunked body: the answer was whole, the transport fails after it.
   */
  setFailAfterDone(on: boolean): void;
  /** Milliseconds between two streamed chunks (default 5). */
  setChunkDelay(ms: number): void;
  /** Characters (`x`) added to every word a stream sends (0 = none): a finite answer of any size. */
  setWordPadding(chars: number): void;
  /** When true, answer 200 with a body that is not valid JSON. */
  setBadJson(on: boolean): void;
  /**
   * Streams never end: one chunk of `chars` characters every chunk delay, as fast as the reader takes them
   * (the fake waits for `drain`), until the client goes away (0 = normal answers).
   */
  setEndlessStreams(chars: number): void;
  /** Streams stop after their first content chunk until resumeStreams() (to observe relaying). */
  pauseStreams(): void;
  resumeStreams(): void;
  /**
   * What answers report as `usage`: `'omit'` none at all (JSON without `usage`, streams without the usage chunk
   * even when asked), or these counts (`completion: 'max_tokens'` = the request's max_tokens); undefined = the
   * default, 5 prompt tokens and one completion token per word sent.
   */
  setUsage(u: UsageSetting): void;
  /** Back to normal answers; counters are kept. */
  reset(): void;
  /** Chat-completion calls received. */
  readonly requests: number;
  /** GET /v1/models calls received. */
  readonly modelRequests: number;
  /** Calls received and not finished yet. */
  readonly inFlight: number;
  /** Calls whose client went away before the answer was complete. */
  readonly aborted: number;
  /** Chat-completion calls answered 429 inside a rate-limit window (openRateLimitWindow). */
  readonly rateLimited: number;
  /** Each chat-completion call (the last 10 000): when it arrived (performance.now()), answered 429 in a window or not. */
  readonly chatLog: readonly { at: number; limited: boolean }[];
  /** TCP connections accepted so far (keep-alive reuse shows as fewer connections than calls). */
  readonly connections: number;
  /** The last chat-completion call (headers and parsed body). */
  readonly lastRequest: FakeRequest | undefined;
  close(): Promise<void>;
}

export type UsageSetting =
  'omit' | { prompt?: number; completion?: number | 'max_tokens' } | undefined;

interface Settings {
  latencyMs: number | ((inFlight: number) => number);
  errorRate: number;
  hang: boolean;
  status: number | undefined;
  chunkDelayMs: number;
  badJson: boolean;
  /** Endless streams of chunks this many characters long (0 = normal answers). */
  endlessChars: number;
  wordPadding: number;
  retryAfter: string | undefined;
  failAfterFirstChunk: boolean;
  failAfterDone: boolean;
  usage: UsageSetting;
  /** The Retry-After (seconds) of an open rate-limit window; undefined = no window. */
  limitedRetryAfter: number | undefined;
}
const DEFAULTS: Settings = {
  latencyMs: 0,
  errorRate: 0,
  hang: false,
  status: undefined,
  chunkDelayMs: 5,
  badJson: false,
  endlessChars: 0,
  wordPadding: 0,
  retryAfter: '1',
  failAfterFirstChunk: false,
  failAfterDone: false,
  usage: undefined,
  limitedRetryAfter: undefined,
};

export async function startFakeOpenAI(): Promise<FakeOpenAI> {
  const s: Settings = { ...DEFAULTS };
  const counts = {
    requests: 0,
    modelRequests: 0,
    inFlight: 0,
    aborted: 0,
    connections: 0,
    rateLimited: 0,
  };
  let lastRequest: FakeRequest | undefined;
  const chatLog: { at: number; limited: boolean }[] = [];
  let gate: { promise: Promise<void>; open: () => void } | undefined;
  let held: { promise: Promise<void>; open: () => void } | undefined;

  const server = createServer((req, res) => {
    counts.inFlight++;
    res.once('close', () => {
      counts.inFlight--;
      if (!res.writableFinished) counts.aborted++;
    });
    handle(req, res).catch(() => res.destroy());
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const arrived = performance.now();
    const path = (req.url ?? '').split('?')[0];
    const raw = await readBody(req);
    // This call's own body: `lastRequest` is shared, and another call may arrive during the latency wait.
    const parsed = parseJson(raw);
    if (req.method === 'POST' && path === '/v1/chat/completions') {
      counts.requests++;
      lastRequest = { method: req.method, path, headers: req.headers, body: parsed };
    } else if (req.method === 'GET' && path === '/v1/models') {
      counts.modelRequests++;
    } else {
      return json(res, 404, {
        error: { message: 'not found', type: 'invalid_request_error', code: 'not_found' },
      });
    }
    const limited = path === '/v1/chat/completions' && s.limitedRetryAfter !== undefined;
    if (path === '/v1/chat/completions') {
      if (chatLog.length >= 10_000) chatLog.shift();
      chatLog.push({ at: arrived, limited });
    }
    if (limited) {
      counts.rateLimited++;
      return errorAnswer(res, 429, String(s.limitedRetryAfter));
    }
    if (s.hang) return; // never answered; 'close' counts the abort
    if (held) await untilOrClose(held.promise, res);
    if (res.destroyed) return;
    const latency = typeof s.latencyMs === 'function' ? s.latencyMs(counts.inFlight) : s.latencyMs;
    if (latency > 0 && !(await sleep(latency, res))) return;
    if (s.status !== undefined) return errorAnswer(res, s.status, s.retryAfter);
    if (s.errorRate > 0 && Math.random() < s.errorRate) return errorAnswer(res, 500);
    if (s.badJson) {
      res.writeHead(200, { 'content-type': 'application/json' });
      return void res.end('{"id": "chatcmpl-broken", "choices": [');
    }
    if (path === '/v1/models')
      return json(res, 200, {
        object: 'list',
        data: [{ id: FAKE_MODEL, object: 'model', created: 0, owned_by: 'rampart-tests' }],
      });
    const body = parsed ?? {};
    const maxTokens = typeof body.max_tokens === 'number' ? body.max_tokens : 16;
    const words = WORDS.slice(0, Math.max(1, Math.min(maxTokens, WORDS.length)));
    const usage = usageFor(s.usage, maxTokens, words.length);
    if (body.stream === true) return stream(res, words, includeUsage(body) ? usage : undefined);
    json(res, 200, {
      id: 'chatcmpl-fake',
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: FAKE_MODEL,
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: words.join('') },
          finish_reason: 'stop',
          logprobs: null,
        },
      ],
      ...(usage ? { usage } : {}),
    });
  }

  async function stream(
    res: ServerResponse,
    words: string[],
    usage: ReturnType<typeof usageFor>,
  ): Promise<void> {
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
    });
    res.flushHeaders();
    const base = {
      id: 'chatcmpl-fake',
      object: 'chat.completion.chunk',
      created: Math.floor(Date.now() / 1000),
      model: FAKE_MODEL,
    };
    const send = (delta: object, finish: string | null): boolean =>
      res.write(
        `data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }] })}\n\n`,
      );
    send({ role: 'assistant', content: '' }, null);
    for (const big = 'x'.repeat(s.endlessChars); s.endlessChars > 0;) {
      if (res.destroyed) return;
      if (!send({ content: big }, null)) await drainOrClose(res);
      if (!(await sleep(s.chunkDelayMs, res))) return;
      // Without a delay, yield to the event loop between chunks: while the kernel takes each write at once,
      // `write` keeps answering true and a microtask-only loop would hold this process (every other call and
      // stream of the fake) until the socket's buffer fills; bench:attack's 16 endless streams stalled the
      // fake 1.1–1.9 s at the attack's start.
      if (s.chunkDelayMs <= 0) await new Promise<void>((r) => setImmediate(r));
    }
    const pad = 'x'.repeat(s.wordPadding);
    for (let i = 0; i < words.length; i++) {
      if (res.destroyed) return;
      send({ content: words[i] + pad }, null);
      if (i === 0 && s.failAfterFirstChunk) {
        // Let the chunk reach the wire first, then drop the connection mid-stream.
        await sleep(s.chunkDelayMs, res);
        return void res.destroy();
      }
      if (i === 0 && gate) await untilOrClose(gate.promise, res);
      if (!(await sleep(s.chunkDelayMs, res))) return;
    }
    send({}, 'stop');
    if (usage) res.write(`data: ${JSON.stringify({ ...base, choices: [], usage })}\n\n`);
    if (!s.failAfterDone) return void res.end('data: [DONE]\n\n');
    // Once on the wire (written to the socket): a reset, as an upstream that crashed or a proxy that cut it.
    res.write('data: [DONE]\n\n', () => res.socket?.resetAndDestroy());
  }

  // Idle connections are kept 65 s, as real upstreams and their load balancers do (Node's default is 5 s). With
  // 5 s, an app whose event loop was starved past its pool's timer (undici: the server's `timeout=5` less 1 s)
  // reused a connection the fake had just closed: a 502 ECONNRESET for a call that never reached it
  // (inference-answer-cache's first warm call, on a loaded machine, after the app's start had built its filters).
  server.keepAliveTimeout = 65_000;
  server.on('connection', () => counts.connections++);
  const listeners = watchListeners(server);

  function resumeStreams(): void {
    gate?.open();
    gate = undefined;
  }

  function releaseAnswers(): void {
    held?.open();
    held = undefined;
  }

  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/v1`,
    listeners,
    setLatency: (ms) => void (s.latencyMs = ms),
    setErrorRate: (rate) => void (s.errorRate = rate),
    setHang: (on) => void (s.hang = on),
    holdAnswers() {
      if (!held) {
        let open!: () => void;
        const promise = new Promise<void>((r) => (open = r));
        held = { promise, open };
      }
      return releaseAnswers;
    },
    setStatus: (code) => void (s.status = code),
    setRetryAfter: (value) => void (s.retryAfter = value),
    openRateLimitWindow: (seconds) => void (s.limitedRetryAfter = seconds),
    closeRateLimitWindow: () => void (s.limitedRetryAfter = undefined),
    setFailAfterFirstChunk: (on) => void (s.failAfterFirstChunk = on),
    setFailAfterDone: (on) => void (s.failAfterDone = on),
    setChunkDelay: (ms) => void (s.chunkDelayMs = ms),
    setBadJson: (on) => void (s.badJson = on),
    setEndlessStreams: (chars) => void (s.endlessChars = chars),
    setWordPadding: (chars) => void (s.wordPadding = chars),
    setUsage: (u) => void (s.usage = u),
    pauseStreams() {
      if (gate) return;
      let open!: () => void;
      const promise = new Promise<void>((r) => (open = r));
      gate = { promise, open };
    },
    resumeStreams,
    reset() {
      Object.assign(s, DEFAULTS);
      resumeStreams();
      releaseAnswers();
    },
    get requests() {
      return counts.requests;
    },
    get modelRequests() {
      return counts.modelRequests;
    },
    get inFlight() {
      return counts.inFlight;
    },
    get aborted() {
      return counts.aborted;
    },
    get rateLimited() {
      return counts.rateLimited;
    },
    get chatLog() {
      return chatLog;
    },
    get connections() {
      return counts.connections;
    },
    get lastRequest() {
      return lastRequest;
    },
    async close() {
      gate?.open();
      releaseAnswers();
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

/** The usage an answer reports (undefined: none). */
function usageFor(
  u: UsageSetting,
  maxTokens: number,
  words: number,
): { prompt_tokens: number; completion_tokens: number; total_tokens: number } | undefined {
  if (u === 'omit') return undefined;
  const prompt = u?.prompt ?? 5;
  const c = u?.completion;
  const completion = c === 'max_tokens' ? maxTokens : (c ?? words);
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
  };
}

function includeUsage(body: Record<string, unknown>): boolean {
  const o = body.stream_options;
  return (
    typeof o === 'object' && o !== null && (o as { include_usage?: unknown }).include_usage === true
  );
}

function errorAnswer(res: ServerResponse, status: number, retryAfter?: string): void {
  const type =
    status >= 500
      ? 'server_error'
      : status === 429
        ? 'rate_limit_exceeded'
        : 'invalid_request_error';
  if (status === 429 && retryAfter !== undefined) res.setHeader('retry-after', retryAfter);
  json(res, status, { error: { message: `fake upstream answered ${status}`, type, code: type } });
}

function json(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

async function readBody(req: IncomingMessage): Promise<string> {
  const parts: Buffer[] = [];
  for await (const chunk of req) parts.push(chunk as Buffer);
  return Buffer.concat(parts).toString('utf8');
}

function parseJson(text: string): Record<string, unknown> | undefined {
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

/**
 * Waits until the response drains or closes, then removes both listeners. (`Promise.race` of two `events.once`
 * left the loser's close and error listeners on the response at every wait: Node's MaxListenersExceededWarning
 * after ten waits of one long stream.)
 */
function drainOrClose(res: ServerResponse): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = (): void => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

/** Waits for `p` or the response's close, whichever comes first, leaving no close listener behind. */
function untilOrClose(p: Promise<void>, res: ServerResponse): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = (): void => {
      res.off('close', done);
      resolve();
    };
    res.on('close', done);
    void p.then(done);
  });
}

/** Waits `ms`; resolves false (early) when the client went away meanwhile. */
function sleep(ms: number, res: ServerResponse): Promise<boolean> {
  if (ms <= 0) return Promise.resolve(!res.destroyed);
  return new Promise((resolve) => {
    const onClose = (): void => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      res.off('close', onClose);
      resolve(!res.destroyed);
    }, ms);
    res.once('close', onClose);
  });
}

/**
 * The client side of the same protocol: yields the `data:` payload of each
 * server-sent event of a fetch Response as it arrives (`[DONE]` included).
 */
export async function* sseData(res: Response): AsyncGenerator<string> {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buf = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buf += decoder.decode(value, { stream: true });
      let end: number;
      while ((end = buf.indexOf('\n\n')) >= 0) {
        const event = buf.slice(0, end);
        buf = buf.slice(end + 2);
        const data = event
          .split('\n')
          .filter((l) => l.startsWith('data:'))
          .map((l) => l.slice(5).trimStart())
          .join('\n');
        if (data) yield data;
      }
    }
  } finally {
    reader.releaseLock();
  }
}
