// Where a bench:telegram-outbound run's budget went, from the fake Bot API's side: reads phase A's record
// (`BENCH_DUMP=<prefix>` writes `<prefix>-strict-<workers>.json`) and prints, per bot, the sends of the first
// second (the ramp), the sends per 100 ms, the gaps between consecutive sends, the time after the last full
// second (the tail) and the idle time while a job was due (unsent, its chat's last send ≥ 1 s before).
// `node test/bench/outbound-trace.mjs <record.json> [--series]`
import { readFileSync } from 'node:fs';

const [file, flag] = process.argv.slice(2);
const rec = JSON.parse(readFileSync(file, 'utf8'));
const ok = rec.calls.filter((c) => c.status === 200).sort((a, b) => a.at - b.at);
const t0 = ok[0].at;
const t1 = ok.at(-1).at;
const bots = [...new Set(ok.map((c) => c.token))].sort();
const PER_BOT = 30;
const ideal = 1000 / PER_BOT;
const ms = (x) => `${x.toFixed(0)} ms`;

const span = t1 - t0;
const share = (ok.length - 1) / (span / 1000) / (PER_BOT * bots.length);
console.log(
  `sends ${ok.length}, 429s ${rec.cooldowns.length}, span ${ms(span)}, share ${(100 * share).toFixed(1)} %` +
    ` (the budget's time for these sends: ${ms(((ok.length - 1) / (PER_BOT * bots.length)) * 1000)}; lost ${ms(span - ((ok.length - 1) / (PER_BOT * bots.length)) * 1000)})`,
);

// A job is due at t when it is unsent and its chat's previous send (any bot) is ≥ 1 s before t.
const byChat = new Map();
for (const c of ok) (byChat.get(c.chat) ?? byChat.set(c.chat, []).get(c.chat)).push(c.at);
/** Sorted times from which one more job was due: a chat's first job at t0, each next one 1 s after the one before. */
const dueFrom = [];
for (const ats of byChat.values())
  ats.forEach((_, i) => dueFrom.push(i === 0 ? t0 : ats[i - 1] + 1000));
dueFrom.sort((a, b) => a - b);
const sentTimes = ok.map((c) => c.at);
/** Jobs due and unsent at t (counted over every bot: a full bot spills its chats to another). */
function dueAt(t) {
  let d = 0;
  let s = 0;
  for (const x of dueFrom) if (x <= t) d++;
  for (const x of sentTimes) if (x < t) s++;
  return d - s;
}

for (const tok of bots) {
  const ats = ok.filter((c) => c.token === tok).map((c) => c.at);
  const gaps = ats.slice(1).map((a, i) => a - ats[i]);
  const sorted = [...gaps].sort((a, b) => a - b);
  const q = (p) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
  const excess = gaps.reduce((n, g) => n + Math.max(0, g - ideal), 0);
  // Idle with a job due: the part of each gap beyond the ideal interval during which dueAt > 0.
  let idleDue = 0;
  for (let i = 1; i < ats.length; i++) {
    const g = ats[i] - ats[i - 1];
    if (g <= ideal) continue;
    const mid = ats[i - 1] + ideal + (g - ideal) / 2;
    if (dueAt(mid) > 0) idleDue += g - ideal;
  }
  const first = ats.filter((a) => a < ats[0] + 1000).length;
  const lastFull = t0 + Math.floor((ats.at(-1) - t0) / 1000) * 1000;
  const tail = ats.filter((a) => a >= lastFull);
  console.log(
    `${tok.slice(0, 9)}: ${ats.length} sends, ${ms(ats[0] - t0)} → ${ms(ats.at(-1) - t0)}, rate ${((ats.length - 1) / ((ats.at(-1) - ats[0]) / 1000)).toFixed(2)}/s;` +
      ` 1st s ${first}; gaps p50 ${q(0.5).toFixed(1)} p90 ${q(0.9).toFixed(1)} p99 ${q(0.99).toFixed(1)} max ${Math.max(...gaps).toFixed(0)};` +
      ` beyond ${ideal.toFixed(1)} ms: ${ms(excess)} (${ms(idleDue)} with a job due); tail ${tail.length} in ${ms(ats.at(-1) - lastFull)}`,
  );
  const big = gaps
    .map((g, i) => [g, ats[i] - t0])
    .filter(([g]) => g > 100)
    .map(([g, at]) => `${at.toFixed(0)}+${g.toFixed(0)}`);
  if (big.length) console.log(`   gaps > 100 ms (at+gap): ${big.join(' ')}`);
  if (flag === '--series') {
    const per = [];
    for (const a of ats)
      per[Math.floor((a - t0) / 100)] = (per[Math.floor((a - t0) / 100)] ?? 0) + 1;
    const secs = [];
    for (let s = 0; s * 10 < per.length; s++)
      secs.push(Array.from({ length: 10 }, (_, k) => (per[s * 10 + k] ?? 0).toString(36)).join(''));
    console.log(`   per 100 ms (base 36), a second a group: ${secs.join(' ')}`);
  }
}
const second = [...byChat.values()].filter((a) => a.length > 1).map((a) => a[1] - a[0]);
if (second.length)
  console.log(
    `chats with 2+ jobs ${second.length}: 2nd send after the 1st p50 ${ms(second.sort((a, b) => a - b)[second.length >> 1])}, min ${ms(second[0])}`,
  );
const ends = bots.map((tok) => ok.filter((c) => c.token === tok).at(-1).at - t0);
console.log(
  `bots end at ${ends.map(ms).join(', ')}; due jobs at the last 2 s: ${[2000, 1500, 1000, 500, 0].map((b) => dueAt(t1 - b)).join(' ')}`,
);
