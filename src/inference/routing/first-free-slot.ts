import type { BackendBreaker } from '../../locks/circuit-breaker/breaker/backend-breaker.js';
import type { Admission } from '../../locks/circuit-breaker/circuit-breaker.types.js';
import type { UpstreamRoute } from './model-routes.types.js';

type Ticket = Extract<Admission, { admit: true }>;
type Refused = Extract<Admission, { admit: false }>;

/** An upstream whose bulkhead was full, with its breaker. */
export interface BusyUpstream {
  u: UpstreamRoute;
  breaker: BackendBreaker;
}

/** The upstream whose slot came first, with its ticket; or why none came (the most telling refusal). */
export type FirstSlot = { admit: true; up: BusyUpstream; ticket: Ticket } | Refused;

/**
 * Waits for the first slot freed on any of `busy` (every upstream of a model alias left to try had its
 * bulkhead full): the call waits in its app's lane of each upstream's fair queue at once (round robin between
 * apps, `maxWaiting` / `maxWaitingPerApp` / `maxWaitMs` of each breaker), takes the first slot handed to it and
 * leaves the other queues; a slot handed to it there at the same moment goes on to the next waiting call.
 * `signal`: the call must stop (its client went away, the route's breaker gave up). With no wait configured
 * (`maxWaitMs` 0) the answer is the breakers' refusal at once.
 */
export async function firstFreeSlot(
  busy: readonly BusyUpstream[],
  tenant: { id: string; tier?: string } | undefined,
  signal: AbortSignal,
): Promise<FirstSlot> {
  const won = new AbortController();
  const stop = AbortSignal.any([signal, won.signal]);
  let first: { up: BusyUpstream; ticket: Ticket } | undefined;
  const refused: Refused[] = [];
  await Promise.all(
    busy.map(async (up) => {
      const a = await up.breaker.admitWaiting(tenant, stop);
      if (!a.admit) return void refused.push(a);
      if (first) return up.breaker.decline(a);
      first = { up, ticket: a };
      won.abort();
    }),
  );
  if (first) return { admit: true, ...first };
  return mostTelling(refused);
}

/** A refusal that says where the call stood (the app's lane full first, then the queue, then the wait ran out). */
function mostTelling(refused: readonly Refused[]): Refused {
  const rank = (r: Refused): number =>
    r.queue === undefined ? 3 : ['app_full', 'full', 'timeout'].indexOf(r.queue.why);
  return [...refused].sort((x, y) => rank(x) - rank(y))[0]!;
}
