// Loaded into each instance by bench:attack (`node --import`, ATTACK_TRACE_FILE set): measures from inside the
// instance, through Node's diagnostics channels, without touching the service's code.
//   per well-behaved request (X-Request-Id `wb-…`, which the service forwards to its upstream):
//     s  when the server read it (the 'request' event: headers parsed); p its connection (client port),
//        k when the server accepted that connection, n the request's place on it,
//     b  when its backend call left (undici `request:create`), h when the backend's headers came back,
//     e  when the backend's answer ended (undici `request:trailers`),
//     f  when its response finished (or c: closed unfinished);
//   per second: the event-loop delay (p99, max; perf_hooks, 10 ms resolution, reset each second), the
//   event-loop utilisation (ELU), the process's CPU time (ms), and its calls to the upstream in flight
//   (time-weighted mean, max): every undici request (JSON calls), from `request:create` to `request:trailers`
//   or `request:error`, and every node:http client request (streamed calls), from its start to its 'close'.
// Times are wall-clock epoch ms (performance.timeOrigin + now), comparable with the bench's own clocks.
// Appends JSON lines to ATTACK_TRACE_FILE once a second and at exit.
import { subscribe } from 'node:diagnostics_channel';
import { appendFileSync } from 'node:fs';
import { PerformanceObserver, monitorEventLoopDelay, performance } from 'node:perf_hooks';

const file = process.env.ATTACK_TRACE_FILE;
if (file) {
  const now = () => performance.timeOrigin + performance.now();
  const open = new Map();
  const calls = new WeakMap();
  let out = [];
  const flush = () => {
    if (out.length === 0) return;
    appendFileSync(file, out.map((r) => JSON.stringify(r)).join('\n') + '\n');
    out = [];
  };
  // bench:attack's senders by their X-Forwarded-For (the first request of each new connection, per bin).
  const WHO = [
    ['10.1.', 'good'],
    ['10.250.', 'blocked'],
    ['10.231.', 'replay'],
    ['10.240.', 'stream'],
  ];
  const whoSent = (xff) =>
    typeof xff !== 'string'
      ? 'none'
      : (WHO.find(([p]) => xff.startsWith(p))?.[1] ??
        (/^10\.1\d\d\./.test(xff) ? 'junk' : 'other'));
  let binNew;
  // One pair of clocks (wall ms, monotonic µs: a --cpu-prof profile's clock) to place a profile's samples.
  out.push({ clock: now(), mono: Number(process.hrtime.bigint() / 1000n), pid: process.pid });
  // Per server socket: when it was accepted, and how many requests it has carried (k, n below).
  const sockets = new WeakMap();
  subscribe('net.server.socket', ({ socket }) => sockets.set(socket, { k: now(), n: 0 }));
  subscribe('http.server.request.start', ({ request, response }) => {
    const sock = sockets.get(request.socket);
    if (sock && sock.n++ === 0 && binNew) {
      const who = whoSent(request.headers['x-forwarded-for']);
      binNew[who] = (binNew[who] ?? 0) + 1;
    }
    const id = request.headers['x-request-id'];
    if (typeof id !== 'string' || !id.startsWith('wb-')) return;
    // p: the client's port (its connection), k: when the server accepted it, n: this request's place on it.
    const r = { id, s: now(), p: request.socket.remotePort, k: sock?.k, n: sock?.n };
    open.set(id, r);
    response.once('close', () => {
      r[response.writableFinished ? 'f' : 'c'] = now();
      open.delete(id);
      out.push(r);
    });
  });
  const idOf = (headers) => {
    if (Array.isArray(headers))
      for (let i = 0; i < headers.length; i += 2)
        if (String(headers[i]).toLowerCase() === 'x-request-id') return String(headers[i + 1]);
    if (typeof headers === 'string') return /x-request-id: ([^\r\n]+)/i.exec(headers)?.[1];
    return undefined;
  };
  // Every upstream call in flight (not only the well-behaved ones'): its time-weighted mean and max per second.
  const up = { n: 0, max: 0, area: 0, at: now() };
  const upMove = (d) => {
    const t = now();
    up.area += up.n * (t - up.at);
    up.at = t;
    up.n += d;
    up.max = Math.max(up.max, up.n);
  };
  const live = new WeakSet();
  const upEnd = ({ request }) => {
    if (live.delete(request)) upMove(-1);
  };
  subscribe('undici:request:trailers', upEnd);
  subscribe('undici:request:error', upEnd);
  subscribe('http.client.request.start', ({ request }) => {
    upMove(1);
    request.once('close', () => upMove(-1));
  });
  subscribe('undici:request:create', ({ request }) => {
    live.add(request);
    upMove(1);
    const r = open.get(idOf(request.headers));
    if (!r) return;
    r.b = now();
    calls.set(request, r);
  });
  subscribe('undici:request:headers', ({ request }) => {
    const r = calls.get(request);
    if (r) r.h = now();
  });
  subscribe('undici:request:trailers', ({ request }) => {
    const r = calls.get(request);
    if (r) r.e = now();
  });
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  // ELU and CPU time (ms) since the last call of the same meter.
  const usage = () => {
    let elu = performance.eventLoopUtilization();
    let cpu = process.cpuUsage();
    return () => {
      const e = performance.eventLoopUtilization(elu);
      const c = process.cpuUsage(cpu);
      [elu, cpu] = [performance.eventLoopUtilization(), process.cpuUsage()];
      return { elu: e.utilization, cpuMs: (c.user + c.system) / 1000 };
    };
  };
  const perSecond = usage();
  let upFrom = now();
  setInterval(() => {
    upMove(0);
    const upMean = up.area / Math.max(1, up.at - upFrom);
    const upMax = up.max;
    [up.area, up.max, upFrom] = [0, up.n, up.at];
    out.push({
      sec: now(),
      loopP99: loop.count > 0 ? loop.percentile(99) / 1e6 : 0,
      loopMax: loop.count > 0 ? loop.max / 1e6 : 0,
      ...perSecond(),
      upMean,
      upMax,
    });
    loop.reset();
    flush();
  }, 1000).unref();
  // ATTACK_TRACE_BINS=ms: also one line per bin of that many ms: every request the server read (any client),
  // new server sockets (firstBy: whose request came first on each, by X-Forwarded-For), the answers finished by
  // sender and status (answered), GC pause time, ELU and CPU time (ms) — to see what an instance does in a flood's first
  // half second.
  const binMs = Number(process.env.ATTACK_TRACE_BINS ?? 0);
  if (binMs > 0) {
    const bin = { reqs: 0, conns: 0, gcMs: 0 };
    binNew = {};
    let binBy = {};
    subscribe('http.server.request.start', ({ request, response }) => {
      bin.reqs++;
      // Per sender and answer (`junk 404`, `forged 401`, …): what the instance spent this bin on.
      const who = whoSent(request.headers['x-forwarded-for']);
      response.once('finish', () => {
        const k = `${who} ${response.statusCode}`;
        binBy[k] = (binBy[k] ?? 0) + 1;
      });
    });
    subscribe('net.server.socket', () => bin.conns++);
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) bin.gcMs += e.duration;
    }).observe({ entryTypes: ['gc'] });
    const perBin = usage();
    setInterval(() => {
      out.push({ bin: now(), ...bin, firstBy: binNew, answered: binBy, ...perBin() });
      Object.assign(bin, { reqs: 0, conns: 0, gcMs: 0 });
      binNew = {};
      binBy = {};
    }, binMs).unref();
  }
  process.once('exit', flush);
}
