// Loaded into each instance by bench:attack (`node --import`, ATTACK_TRACE_FILE set): measures from inside the
// instance, through Node's diagnostics channels, without touching the service's code.
//   per well-behaved request (X-Request-Id `wb-…`, which the service forwards to its upstream):
//     s  when the server read it (the 'request' event: headers parsed),
//     b  when its backend call left (undici `request:create`), h when the backend's headers came back,
//     e  when the backend's answer ended (undici `request:trailers`),
//     f  when its response finished (or c: closed unfinished);
//   per second: the event-loop delay (p99, max; perf_hooks, 10 ms resolution, reset each second), the
//   event-loop utilisation (ELU) and the process's CPU time (ms).
// Times are wall-clock epoch ms (performance.timeOrigin + now), comparable with the bench's own clocks.
// Appends JSON lines to ATTACK_TRACE_FILE once a second and at exit.
import { subscribe } from 'node:diagnostics_channel';
import { appendFileSync } from 'node:fs';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';

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
  subscribe('http.server.request.start', ({ request, response }) => {
    const id = request.headers['x-request-id'];
    if (typeof id !== 'string' || !id.startsWith('wb-')) return;
    const r = { id, s: now() };
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
  subscribe('undici:request:create', ({ request }) => {
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
  let elu = performance.eventLoopUtilization();
  let cpu = process.cpuUsage();
  setInterval(() => {
    const e = performance.eventLoopUtilization(elu);
    elu = performance.eventLoopUtilization();
    const c = process.cpuUsage(cpu);
    cpu = process.cpuUsage();
    out.push({
      sec: now(),
      loopP99: loop.count > 0 ? loop.percentile(99) / 1e6 : 0,
      loopMax: loop.count > 0 ? loop.max / 1e6 : 0,
      elu: e.utilization,
      cpuMs: (c.user + c.system) / 1000,
    });
    loop.reset();
    flush();
  }, 1000).unref();
  process.once('exit', flush);
}
