// bench:attack's report (attack.bench.mjs measures): per run (locks on / every lock off) and route,
// the well-behaved clients alone vs under attack, the backend while slow, the attackers; goals at the end.
const quantile = (xs, q) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor(q * s.length))] : NaN;
};
const ok = (st) => Object.entries(st).reduce((n, [k, v]) => n + (k >= 200 && k < 300 ? v : 0), 0);
const merge = (parts) => ({
  ms: parts.flatMap((p) => p.ms),
  statuses: parts.reduce((acc, p) => {
    for (const [k, v] of Object.entries(p.statuses)) acc[k] = (acc[k] ?? 0) + v;
    return acc;
  }, {}),
});
const fmt = (x, d = 1) => (Number.isFinite(x) ? +x.toFixed(d) : '—');

/** Per route: success and p99, alone (both calm phases) and under attack. */
function routes(run) {
  const alone = run.phases.filter((p) => p.name === 'alone');
  const attack = run.phases.find((p) => p.name === 'attack');
  return ['search', 'inference'].map((route) => {
    const a = merge(alone.map((p) => p.good.byRoute[route]));
    const b = attack.good.byRoute[route];
    const successAlone = ok(a.statuses) / Math.max(1, a.ms.length);
    const success = ok(b.statuses) / Math.max(1, b.ms.length);
    const p99Alone = quantile(a.ms, 0.99);
    const p99 = quantile(b.ms, 0.99);
    return {
      run: run.label,
      route,
      'requests alone / attack': `${a.ms.length} / ${b.ms.length}`,
      'success % alone': fmt(100 * successAlone, 2),
      'success % attack': fmt(100 * success, 2),
      'p50 ms alone / attack': `${fmt(quantile(a.ms, 0.5))} / ${fmt(quantile(b.ms, 0.5))}`,
      'p99 ms alone': fmt(p99Alone),
      'p99 ms attack': fmt(p99),
      'p99 ÷ alone': fmt(p99 / p99Alone, 2),
      'statuses under attack': JSON.stringify(b.statuses),
      success,
      ratio: p99 / p99Alone,
    };
  });
}

/** The backend while it was slow, against its unloaded latency × the slow factor. */
function backend(run, { SLOW_FACTOR, BACKEND_MS }) {
  const attack = run.phases.find((p) => p.name === 'attack');
  const alone = run.phases.filter((p) => p.name === 'alone').map((p) => p.backend);
  const unloaded = Math.min(...alone.map((b) => b.p50).filter((x) => x > 0), Infinity);
  const base = Number.isFinite(unloaded) ? unloaded : BACKEND_MS;
  const s = attack.slow;
  const limits = s.limits.length
    ? `${Math.min(...s.limits)}–${Math.max(...s.limits)}`
    : 'n/a (fixed)';
  return {
    run: run.label,
    'unloaded p50 ms (alone)': fmt(base),
    'calls while slow': s.backend.calls,
    'latency p50 / p99 / max ms while slow': `${fmt(s.backend.p50)} / ${fmt(s.backend.p99)} / ${fmt(s.backend.max)}`,
    'p99 ÷ (unloaded × factor)': fmt(s.backend.p99 / (base * SLOW_FACTOR), 2),
    'backend peak in flight': s.backend.peak,
    'breakers: peak in flight / waiting': `${s.inFlight} / ${s.waiting}`,
    'adaptive limit (sum)': limits,
    ratio: s.backend.p99 / (base * SLOW_FACTOR),
    waiting: s.waiting,
  };
}

export function report(runs, { SECONDS, SLOW_FACTOR, BACKEND_MS, load, table }) {
  // The rows without the raw figures the goals read (success, ratio, waiting).
  const HIDDEN = new Set(['success', 'ratio', 'waiting']);
  const strip = (rows) =>
    rows.map((r) => Object.fromEntries(Object.entries(r).filter(([k]) => !HIDDEN.has(k))));
  const perRoute = runs.flatMap(routes);
  const backends = runs.map((r) => backend(r, { SLOW_FACTOR, BACKEND_MS }));
  console.log('\nwell-behaved clients, per route: alone (both calm phases) vs under attack');
  table(strip(perRoute));
  console.log(
    `\nthe backend while ${SLOW_FACTOR}× slower (latency given to admitted calls, at the fake)`,
  );
  table(strip(backends));
  for (const run of runs) {
    const attack = run.phases.find((p) => p.name === 'attack');
    console.log(`\nattackers (${run.label})`);
    table(
      attack.bad.map((b) => ({
        attacker: b.kind,
        requests: b.requests,
        'req/s': Math.round(b.requests / SECONDS),
        statuses: JSON.stringify(b.statuses),
        errors: b.errors,
        ...(b.note ? { note: b.note } : {}),
      })),
    );
    for (const p of run.phases)
      for (const [k, example] of Object.entries(p.good.examples))
        console.log(`well-behaved ${k} (${p.name}), e.g. ${example}`);
  }
  const verdict = (good) => (good ? 'met' : 'NOT MET');
  const goals = [];
  for (const r of perRoute) {
    goals.push({
      run: r.run,
      goal: `${r.route}: success ≥ 99 %`,
      measured: `${fmt(100 * r.success, 2)} %`,
      result: verdict(r.success >= 0.99),
    });
    goals.push({
      run: r.run,
      goal: `${r.route}: p99 ≤ 3× alone`,
      measured: `${fmt(r.ratio, 2)}×`,
      result: verdict(r.ratio <= 3),
    });
  }
  for (const b of backends) {
    goals.push({
      run: b.run,
      goal: 'backend while slow: p99 ≤ 2× unloaded (× factor)',
      measured: `${fmt(b.ratio, 2)}×`,
      result: verdict(b.ratio <= 2),
    });
    goals.push({
      run: b.run,
      goal: 'backend: peak in flight (queued past its slots?)',
      measured: b['backend peak in flight'],
      result: '(read)',
    });
  }
  console.log('\ngoals (issue 32, "goodput under attack")');
  table(goals);
  console.log(
    `machine load average (1 min): ${load.map((l) => l.toFixed(1)).join(' → ')} (start, after locks on, after locks off)`,
  );
}
