// bench:attack: where a well-behaved request's time went, from the clients' records joined with the instances'
// traces (attack-trace.mjs) by request id. All times are wall-clock epoch ms. Steps of one request:
//   late     the client thread sent it this late after its schedule (the bench's own delay);
//   to srv   sent → the instance read it ('request' event): the socket queue, i.e. the instance's event
//            loop busy elsewhere (and the kernel, and the client's fetch);
//   chain    read → its backend call left (inference), or → its response finished (search, which never
//            calls the inference backend): the guards (signature, rate limit: one Redis round trip), the
//            shield and the breaker, with every wait for the event loop between them;
//   backend  the backend call: sent → its answer ended (the fake's latency, and both loops);
//   after    the backend's answer → the response finished (relay, serialisation);
//   to cli   finished → the client had read the answer.
// Per window, for the requests at or above the window's p99 ("tail") and for all ("median").
export const quantile = (xs, q) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor(q * s.length))] : NaN;
};
const fmt = (x, d = 1) => (Number.isFinite(x) ? +x.toFixed(d) : '—');
const mean = (xs) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : NaN);
const STEPS = ['late', 'to srv', 'chain', 'backend', 'after', 'to cli'];

function stepsOf(r, t) {
  if (!t || t.f === undefined) return undefined;
  const called = t.b !== undefined;
  const backendEnd = t.e ?? t.h;
  return {
    late: r.late,
    'to srv': t.s - r.at,
    chain: (called ? t.b : t.f) - t.s,
    backend: called && backendEnd !== undefined ? backendEnd - t.b : 0,
    after: called && backendEnd !== undefined ? t.f - backendEnd : 0,
    'to cli': r.at + r.ms - t.f,
  };
}

/** Per-second rows (instance or client thread) inside a window of the run. */
export function secondsIn(rows, run, window, key = 'sec') {
  const attack = run.phases.find((p) => p.name === 'attack');
  const { from, to } = attack.slow;
  const inPhase = (p, t) => t > p.start && t <= p.end + 1;
  return rows.filter((x) => {
    const t = x[key];
    if (window === 'alone') return run.phases.some((p) => p.name === 'alone' && inPhase(p, t));
    if (!inPhase(attack, t)) return false;
    const slow = t > from && t <= to + 1000;
    return window === 'slow' ? slow : !slow;
  });
}

export function breakdown(run, windows, traces, table) {
  const byId = new Map();
  for (const inst of traces) for (const t of inst.steps) byId.set(t.id, t);
  const rows = [];
  const inside = [];
  for (const route of ['search', 'inference']) {
    const own = { route };
    for (const w of ['alone', 'normal', 'slow']) {
      const rs = windows[w].filter((r) => r.route === route && r.status !== 0);
      const joined = rs.map((r) => ({ r, s: stepsOf(r, byId.get(r.id)) })).filter((x) => x.s);
      if (joined.length === 0) continue;
      own[w] = quantile(
        joined.map((x) => x.s.chain + x.s.backend + x.s.after),
        0.99,
      );
      const p99 = quantile(
        joined.map((x) => x.r.ms),
        0.99,
      );
      const tail = joined.filter((x) => x.r.ms >= p99);
      const row = (label, xs, agg) => ({
        route,
        window: w,
        of: label,
        n: xs.length,
        'total ms': fmt(agg(xs.map((x) => x.r.ms))),
        ...Object.fromEntries(STEPS.map((k) => [k, fmt(agg(xs.map((x) => x.s[k])))])),
      });
      rows.push(row('median', joined, (v) => quantile(v, 0.5)));
      rows.push(row('tail ≥ p99 (mean)', tail, mean));
    }
    inside.push({
      route,
      'p99 ms alone / normal / slow': [own.alone, own.normal, own.slow]
        .map((x) => fmt(x))
        .join(' / '),
      'normal ÷ alone': fmt(own.normal / own.alone, 2),
    });
  }
  console.log(`\nwhere the well-behaved time went, ms (${run.label}; attack-trace.mjs)`);
  table(rows);
  // Inside the instance: read → response finished (chain + backend + after), without the socket queues and the
  // client thread's own delays, which on a shared machine also measure the bench's own processes.
  console.log(`p99 inside the instances, read → response finished (${run.label})`);
  table(inside);
  const health = [];
  for (const w of ['alone', 'normal', 'slow']) {
    const row = { window: w };
    traces.forEach((inst, i) => {
      const s = secondsIn(inst.seconds, run, w);
      row[`instance ${i + 1}: loop p99 median / max`] = `${fmt(
        quantile(
          s.map((x) => x.loopP99),
          0.5,
        ),
      )} / ${fmt(Math.max(...s.map((x) => x.loopMax)))}`;
      row[`instance ${i + 1}: CPU % / ELU`] =
        `${fmt(mean(s.map((x) => x.cpuMs / 10)), 0)} / ${fmt(mean(s.map((x) => x.elu)), 2)}`;
    });
    const loop = run.phases.flatMap((p) => p.good.loop ?? []);
    const c = secondsIn(loop, run, w, 'at');
    row['client thread: loop p99 median / max'] = `${fmt(
      quantile(
        c.map((x) => x.p99),
        0.5,
      ),
    )} / ${fmt(Math.max(...c.map((x) => x.max)))}`;
    health.push(row);
  }
  console.log(`event loops and CPU per second (${run.label})`);
  table(health);
}
