import { Card, RouteList } from '../components/bits.js';
import { fmtInt, fmtRate, fmtRelative } from '../lib/format.js';
import { useNow } from '../lib/hooks.js';
import { CHARTED, recentRates, requestsIn } from '../lib/series.js';
import type { StatusView } from '../lib/types.js';

const LABEL: Record<(typeof CHARTED)[number], string> = {
  allowed: 'allowed',
  rejected: 'rejected',
  shadow_rejected: 'shadow-rejected',
  short_circuited: 'short-circuited',
};

interface Props {
  status: StatusView;
  locks: readonly string[];
  rates: ReturnType<typeof recentRates>;
}

/** Counters since each instance started (summed), per policy and per lock. */
export function CountersTables({ status, locks, rates }: Props) {
  return (
    <div class="grid-2">
      <Card title="Per policy">
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Policy</th>
                <th scope="col" class="num">
                  Requests
                </th>
                <th scope="col" class="num">
                  req/s
                </th>
                <th scope="col" class="num">
                  rejected/s
                </th>
                <th scope="col" class="num">
                  shadow/s
                </th>
              </tr>
            </thead>
            <tbody>
              {status.byPolicy.map((p) => (
                <tr key={p.policy}>
                  <th scope="row">
                    {p.policy}
                    <RouteList routes={p.routes} />
                  </th>
                  <td class="num" data-testid={`requests-${p.policy}`}>
                    {fmtInt(requestsIn(p.locks))}
                  </td>
                  <td class="num">{fmtRate(rates[p.policy]?.requests ?? 0)}</td>
                  <td class="num">{fmtRate(rates[p.policy]?.rejected ?? 0)}</td>
                  <td class="num">{fmtRate(rates[p.policy]?.shadow_rejected ?? 0)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </Card>
      <Card title="Per lock (since start)">
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Lock</th>
                {CHARTED.map((o) => (
                  <th scope="col" class="num" key={o}>
                    {LABEL[o]}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {locks.map((lock) => {
                const byPolicy = status.byLock[lock] ?? {};
                return (
                  <tr key={lock}>
                    <th scope="row">{lock}</th>
                    {CHARTED.map((o) => (
                      <td class="num" key={o} data-testid={`count-${lock}-${o}`}>
                        {fmtInt(Object.values(byPolicy).reduce((s, c) => s + (c[o] ?? 0), 0))}
                      </td>
                    ))}
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      </Card>
    </div>
  );
}

/** Every live instance and the policy version it runs. */
export function InstancesTable({ status }: { status: StatusView }) {
  const now = useNow(2000);
  return (
    <Card title="Instances">
      <div class="table-wrap">
        <table>
          <thead>
            <tr>
              <th scope="col">Instance</th>
              <th scope="col">Last report</th>
              <th scope="col">Policy version</th>
            </tr>
          </thead>
          <tbody>
            {status.instances.map((i) => (
              <tr key={i.id}>
                <th scope="row">
                  <code>{i.id}</code> {i.self ? <small>(answered this page)</small> : null}
                </th>
                <td>{fmtRelative(Date.parse(i.at), now)}</td>
                <td>
                  {i.policyVersion === undefined ? '—' : `v${i.policyVersion}`}
                  {i.policyVersion !== undefined && i.policyVersion !== status.policyVersion ? (
                    <span class="badge tone-warn">differs</span>
                  ) : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </Card>
  );
}
