// Where bench:telegram-outbound's phase A lost its budget, per bot, in sends: the fake's arrival times (its record)
// and the workers' gate calls as Redis saw them (MONITOR lines of `telegram_send_depart`, `telegram_send_charge`,
// `telegram_queue_claim`, `telegram_queue_settle`, timed by the Redis server). The run [first send, last send] is
// cut in 100 ms bins; a bot's budget is 3 sends a bin (30/s). Lost sends = 30/s × span − (sends − 1), exactly the
// sum of the bins' (3 − sends), each bin's shortfall filed under one cause (a catch-up bin, 4+ sends, counts
// negative under the cause its bin has):
//   ramp       — the run's first second;
//   tail       — from the last instant at least 3 jobs per bot were due (unsent, their chat's last send ≥ 1 s
//                before): the end of the backlog, paced by its chats;
//   margin     — the bucket's own pace below 30/s (29.5/s: 0.05 sends a bin), taken out of every other bin;
//   depart     — a departure check of this bot answered "full" in the bin (a check not followed by a send of
//                the bot within 50 ms): the send waited for the departure window;
//   unclaimed  — jobs due, no departure retry, and no lane of this bot charged at the gate for the bin (no
//                charge of the bot in the 550 ms before the bin's end that leads to a send after the bin's
//                start): the bot waited for a claim;
//   no job due — every unsent job's chat had sent less than 1 s before (chat-paced);
//   other      — jobs charged and due, no retry: pacing jitter, the machine (every bot at once).
// A catch-up bin with no cause of its own goes back to the cause of the short bin just before it.
const BIN = 100;
const PER_BOT = 30;
const PACE = 29.5;

/** Collects the MONITOR lines the breakdown reads: pass `collector.onLine` to redis.roundTrips. */
export function gateCalls(scriptNames) {
  const calls = [];
  const wanted = new Set([
    'telegram_send_depart',
    'telegram_send_charge',
    'telegram_queue_claim',
    'telegram_queue_settle',
  ]);
  return {
    calls,
    onLine(line) {
      const m = /^(\d+\.\d+) \[\d+ ([^\]]+)\] "evalsha" "([0-9a-f]+)"/i.exec(line);
      const name = m && scriptNames[m[3]];
      if (!wanted.has(name)) return;
      const bot = /:bot:([^}]+)\}/.exec(line)?.[1];
      calls.push({ at: Number(m[1]) * 1000, client: m[2], name, bot });
    },
  };
}

const lowerBound = (xs, t) => {
  let lo = 0;
  let hi = xs.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (xs[mid] < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
};

/** { rows: per-bot breakdown, series: per-bot sends per 100 ms (base 36, a second a group), gaps: claim gaps }. */
export function budgetBreakdown(rec, calls, botIds, tokens) {
  const ok = rec.calls.filter((c) => c.status === 200).sort((a, b) => a.at - b.at);
  const t0 = ok[0].at;
  const t1 = ok.at(-1).at;
  const nBins = Math.ceil((t1 - t0) / BIN) || 1;
  // Jobs due at t: a chat's first job from t0, each next one 1 s after its chat's previous send.
  const byChat = new Map();
  for (const c of ok) (byChat.get(c.chat) ?? byChat.set(c.chat, []).get(c.chat)).push(c.at);
  const dueFrom = [];
  for (const ats of byChat.values())
    ats.forEach((_, i) => dueFrom.push(i ? ats[i - 1] + 1000 : t0));
  dueFrom.sort((a, b) => a - b);
  const sent = ok.map((c) => c.at);
  const dueAt = (t) => lowerBound(dueFrom, t + 1e-9) - lowerBound(sent, t);
  let tailFrom = t1;
  for (let b = nBins - 1; b >= 0; b--) {
    if (dueAt(t0 + b * BIN) >= 3 * tokens.length) break;
    tailFrom = t0 + b * BIN;
  }
  const margin = (BIN / 1000) * (PER_BOT - PACE);
  const rows = [];
  const series = [];
  tokens.forEach((tok, i) => {
    const bot = botIds[i];
    const ats = ok.filter((c) => c.token === tok).map((c) => c.at);
    const mine = (name) =>
      calls
        .filter((c) => c.name === name && c.bot === bot)
        .map((c) => c.at)
        .sort((a, b) => a - b);
    // A departure check followed by a send of the bot within 50 ms let it go; any other answered "full".
    const departs = mine('telegram_send_depart');
    const retries = [];
    let j = 0;
    for (let k = 0; k < departs.length; k++) {
      const d = departs[k];
      while (j < ats.length && ats[j] < d - 2) j++;
      const nextDepart = departs[k + 1] ?? Infinity;
      if (j < ats.length && ats[j] <= d + 50 && ats[j] <= nextDepart + 2) j++;
      else retries.push(d);
    }
    const charges = mine('telegram_send_charge');
    const per = new Array(nBins).fill(0);
    for (const a of ats) per[Math.min(nBins - 1, Math.floor((a - t0) / BIN))]++;
    const cause = {
      ramp: 0,
      tail: 0,
      margin: 0,
      depart: 0,
      unclaimed: 0,
      'no job due': 0,
      other: 0,
    };
    let owed;
    for (let b = 0; b < nBins; b++) {
      const from = t0 + b * BIN;
      const to = Math.min(t1, from + BIN);
      // The last bin is partial: its budget is its part of 3.
      const budget = b === nBins - 1 ? (3 * (to - from)) / BIN : 3;
      let short = budget - per[b];
      if (b === 0) short += 1; // the run's first send is free: a full run is 30/s × span + 1 sends
      if (from < t0 + 1000) cause.ramp += short;
      else if (from >= tailFrom) cause.tail += short;
      else {
        cause.margin += margin;
        short -= margin;
        const inBin = (xs) => lowerBound(xs, to) - lowerBound(xs, from);
        let why = 'other';
        if (inBin(retries) > 0) why = 'depart';
        else if (dueAt(from + BIN / 2) < 1) why = 'no job due';
        else if (
          inBin(charges) === 0 &&
          lowerBound(charges, to) - lowerBound(charges, to - 550) < 3
        )
          why = 'unclaimed';
        // A catch-up bin (sends late in the bin before arriving in this one) goes back to that bin's cause.
        if (short < 0 && why === 'other' && owed) why = owed;
        cause[why] += short;
        owed = short > 0 ? why : undefined;
      }
    }
    const lost = (PER_BOT * (t1 - t0)) / 1000 - (ats.length - 1);
    rows.push({
      bot,
      sends: ats.length,
      lost,
      ...cause,
      retries: retries.length,
      departs: departs.length,
    });
    const secs = [];
    for (let s = 0; s * 10 < nBins; s++)
      secs.push(
        Array.from({ length: 10 }, (_, k) =>
          s * 10 + k < nBins ? per[s * 10 + k].toString(36) : '',
        ).join(''),
      );
    series.push(`${bot}: ${secs.join(' ')}`);
  });
  const claims = calls.filter((c) => c.name === 'telegram_queue_claim' && c.at >= t0 && c.at <= t1);
  const settles = calls.filter(
    (c) => c.name === 'telegram_queue_settle' && c.at >= t0 && c.at <= t1,
  );
  return {
    rows,
    series,
    claims: claims.length,
    settles: settles.length,
    span: t1 - t0,
    tailMs: t1 - tailFrom,
  };
}

/** The breakdown as a table (sends lost per cause, per bot) and the 100 ms series, on stderr. */
export function printBreakdown(label, b, write = (s) => process.stderr.write(s)) {
  const f = (x) => x.toFixed(1);
  const keys = ['ramp', 'margin', 'depart', 'unclaimed', 'no job due', 'other', 'tail'];
  const lines = [
    `budget breakdown ${label}: span ${b.span.toFixed(0)} ms (tail ${b.tailMs.toFixed(0)} ms), ` +
      `claims ${b.claims}, settles ${b.settles} in the span; sends lost per cause (30/s × span − (sends − 1)):`,
    `  bot   sends  lost  ${keys.map((k) => k.padStart(11)).join('')}  depart checks (full)`,
  ];
  for (const r of b.rows)
    lines.push(
      `  ${r.bot.padEnd(5)} ${String(r.sends).padStart(5)} ${f(r.lost).padStart(5)}  ` +
        `${keys.map((k) => f(r[k]).padStart(11)).join('')}  ${r.departs} (${r.retries})`,
    );
  lines.push('  sends per 100 ms (base 36, a second a group):', ...b.series.map((s) => `    ${s}`));
  write(`${lines.join('\n')}\n`);
}
