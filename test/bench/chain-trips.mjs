// bench:chain's Redis round trips per request: MONITOR while a row's requests run, with the calls the
// app's own timers make in that window left out (they are no request's: they land in whichever row runs).
import { cannon } from './lib.mjs';

/**
 * The calls no request makes, by what the app's timers send (see ARCHITECTURE and docs/benchmarks.md):
 * - the instance heartbeat (`lua/ratelimit_instance.lua`, every `rateLimit.heartbeat`) and the load
 *   level's poll (`lua/ratelimit_load.lua`, at most one per `load.poll`);
 * - the Redis-figures sampler (admin/observability: a lease `SET NX`, INFO, DBSIZE, SCAN pages over the
 *   rate-limit keys — more pages the more keys the runs before left, e.g. nonces — the result `SET`/`GET`);
 * - config sync and the status snapshot (GET / HSET / PEXPIRE / MULTI on `cfg:{…}` keys).
 * Everything else is counted: the requests' own calls and what they queue for later (the risk
 * signals of refused requests, `lua/ratelimit_risk_observe.lua`, written within 20 ms).
 */
export function timerCall(command, line, scriptName) {
  if (command === 'evalsha')
    return scriptName === 'ratelimit_instance' || scriptName === 'ratelimit_load';
  if (/^(scan|dbsize|info|multi|exec)$/.test(command)) return true;
  return /^"[a-z]+" "cfg:\{/i.test(line.slice(line.indexOf('] ') + 2));
}

/**
 * Round trips per request of `amount` requests at 10 connections (commands run inside scripts left
 * out): those the requests cause, per request; and each call seen, by command or script name, with
 * `(timer)` after the ones left out.
 */
export async function roundTrips(redis, app, requests, names, amount = 400) {
  let answered = 0;
  const seen = {};
  const { byClass } = await redis.roundTrips(
    async () => {
      const res = await cannon({ url: app.url, requests, amount, connections: 10, duration: 60 });
      answered = res.requests.total;
    },
    (line) => {
      const m = /^\d+\.\d+ \[\d+ [^\]]+\] "([^"]+)"(?: "([0-9a-f]{40})")?/i.exec(line);
      if (!m) return undefined;
      const command = m[1].toLowerCase();
      const script = m[2] ? (names[m[2].toLowerCase()] ?? m[2].slice(0, 8)) : undefined;
      const timer = timerCall(command, line, script);
      const name = `${script ?? command}${timer ? ' (timer)' : ''}`;
      seen[name] = (seen[name] ?? 0) + 1;
      return timer ? 'timer' : 'request';
    },
  );
  return { perRequest: (byClass.request ?? 0) / Math.max(1, answered), seen };
}
