// Self and total shares of a V8 .cpuprofile by function and by file/package, and a side-by-side table of
// several profiles scaled to their rows' µs per request (chain-prof.mjs). Never shipped.
//   node test/bench/prof-shares.mjs a.cpuprofile[=µs] b.cpuprofile[=µs] …   (PROF_TOP, default 30)
// Shares are of the non-idle samples; `(idle)` is left out so a row's figures do not depend on how long
// the app waited for the load generator. Scaled by a row's Node CPU µs per request, a share reads as
// µs per request; the sampler's own cost and its inflation of native frames stay in, in every row alike.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const ROOT = new URL('../../', import.meta.url).href;
const IDLE = new Set(['(idle)']);

/** The file or package a frame belongs to: `pkg @nestjs/core`, `dist/src/…`, `node:net`, `(native)`. */
export function fileOf({ url, functionName }) {
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  const nm = url.lastIndexOf('/node_modules/');
  if (nm >= 0) {
    const [a, b] = url.slice(nm + 14).split('/');
    return `pkg ${a.startsWith('@') ? `${a}/${b}` : a}`;
  }
  if (url.startsWith(ROOT)) return url.slice(ROOT.length);
  if (url.startsWith('node:')) return url;
  return url.startsWith('file:') ? fileURLToPath(url) : url;
}
const short = (file) => file.replace(/^dist\/src\//, '').replace(/^pkg /, '');
export const fnOf = (f) =>
  f.url
    ? `${f.functionName || '(anonymous)'} ${short(fileOf(f))}:${f.lineNumber + 1}`
    : f.functionName.startsWith('(')
      ? f.functionName
      : `${f.functionName} (native)`;

/**
 * Sample count, median sampling interval (µs) and self/total shares (0..1) by function and by file; with
 * `focus` (a substring of a function key, PROF_FOCUS), `under`: the shares of the callees right below the
 * outermost frame that matches it (a one-level call tree of, say, `canActivate chain/chain.guard`).
 */
export function summarize(profile, focus = process.env.PROF_FOCUS) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const stacks = new Map(); // node id → [fn keys, file keys], leaf first, each key once
  const stackOf = (id) => {
    let s = stacks.get(id);
    if (s) return s;
    const fns = [];
    const files = [];
    for (let at = id; at !== undefined; at = parent.get(at)) {
      const f = byId.get(at).callFrame;
      if (f.functionName === '(root)') continue;
      fns.push(fnOf(f));
      files.push(fileOf(f));
    }
    s = [fns, files];
    stacks.set(id, s);
    return s;
  };
  const fn = new Map();
  const file = new Map();
  const add = (map, key, self) => {
    const e = map.get(key) ?? { self: 0, total: 0 };
    if (self) e.self++;
    e.total++;
    map.set(key, e);
  };
  const under = new Map(); // focus: the callee (or `self`) below the outermost frame matching it
  let busy = 0;
  for (const id of profile.samples) {
    if (IDLE.has(byId.get(id).callFrame.functionName)) continue;
    busy++;
    const [fns, files] = stackOf(id);
    new Set(fns).forEach((k) => add(fn, k, k === fns[0]));
    new Set(files).forEach((k) => add(file, k, k === files[0]));
    const at = focus ? fns.findLastIndex((k) => k.includes(focus)) : -1;
    if (at >= 0) add(under, at === 0 ? `${fns[0]} (self)` : fns[at - 1], true);
  }
  const shares = (map) =>
    new Map([...map].map(([k, e]) => [k, { self: e.self / busy, total: e.total / busy }]));
  const deltas = [...profile.timeDeltas].sort((a, b) => a - b);
  return {
    samples: profile.samples.length,
    busy,
    intervalUs: deltas[deltas.length >> 1] ?? NaN,
    fn: shares(fn),
    file: shares(file),
    under: shares(under),
  };
}

/**
 * Lines of a side-by-side table: for each key, each row's self and total share scaled to µs per request
 * (`rows[i].us`), sorted by the last row's self µs minus the first's (the first row is the base).
 */
export function sideBySide(rows, what, top = 30) {
  const keys = new Set(rows.flatMap((r) => [...r.summary[what].keys()]));
  const us = (r, k, part) => (r.summary[what].get(k)?.[part] ?? 0) * r.us;
  const diff = (k) => us(rows.at(-1), k, 'self') - us(rows[0], k, 'self');
  const order = rows.length > 1 ? (k) => Math.abs(diff(k)) : (k) => us(rows[0], k, 'self');
  const sorted = [...keys].sort((a, b) => order(b) - order(a)).slice(0, top);
  const head = rows.map((r) => `${r.name.slice(0, 18).padStart(18)} self/total`).join(' ');
  const cell = (r, k) =>
    `${us(r, k, 'self').toFixed(2).padStart(17)} /${us(r, k, 'total').toFixed(1).padStart(6)}`;
  return [
    `by ${what} (µs per request; sorted by |self, last − first|, or by self for one row)`,
    `${'Δself'.padStart(7)} ${head}  ${what}`,
    ...sorted.map(
      (k) => `${diff(k).toFixed(2).padStart(7)} ${rows.map((r) => cell(r, k)).join(' ')}  ${k}`,
    ),
  ];
}

/** The tables to print: by file, by function, and under PROF_FOCUS when it is set. */
export const tables = () => ['file', 'fn', ...(process.env.PROF_FOCUS ? ['under'] : [])];

/** One summary line for a row: samples, interval, µs per request. */
export const rowLine = (r) =>
  `${r.name}: ${r.summary.samples} samples (${r.summary.busy} busy), median interval ${r.summary.intervalUs} µs, ${r.us.toFixed(1)} µs/req`;

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const rows = process.argv.slice(2).map((arg) => {
    const [path, us = '100'] = arg.split('=');
    const summary = summarize(JSON.parse(readFileSync(path, 'utf8')));
    return { name: path.split('/').at(-1), us: Number(us), summary };
  });
  const top = Number(process.env.PROF_TOP ?? 30);
  for (const r of rows) console.log(rowLine(r));
  for (const what of tables()) console.log(['', ...sideBySide(rows, what, top)].join('\n'));
}
