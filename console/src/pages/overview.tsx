import { useMemo } from 'preact/hooks';
import { Chart } from '../components/chart.js';
import { Card } from '../components/bits.js';
import { useConsole } from '../lib/context.js';
import { fmtBytes, fmtInt, fmtRate } from '../lib/format.js';
import { usePoll } from '../lib/hooks.js';
import { lockColumns, recentRates, requestColumns } from '../lib/series.js';
import { useSeries } from '../lib/use-series.js';
import type { StatusView } from '../lib/types.js';
import { CountersTables, InstancesTable } from './overview-tables.js';
import { OUTCOME_LINES, POLICY_COLORS } from './palette.js';

/** Traffic now and over the last 15 minutes, per policy and per lock. */
export function Overview() {
  const { api, config } = useConsole();
  const status = usePoll(() => api.get<StatusView>('/admin/status'), 2000, [api]);
  const series = useSeries(api);
  const s = status.data;
  const policies = useMemo(
    () => (s ? s.byPolicy.map((p) => p.policy) : Object.keys(config.policySet.policies)),
    [s?.byPolicy.map((p) => p.policy).join(',')],
  );
  const rates = recentRates(series.points, series.now, 60_000);
  const totalRps = Object.values(rates).reduce((sum, r) => sum + r.requests, 0);
  const requestLines = policies.map((p, i) => ({
    label: p,
    color: POLICY_COLORS[i % POLICY_COLORS.length]!,
  }));
  const locks = config.installedLocks;

  return (
    <>
      <h1>Overview</h1>
      {status.error ? (
        <p class="error" role="alert">
          Status unavailable: {status.error.message}
        </p>
      ) : null}
      <div class="tiles">
        <Tile label="Requests/s (last minute)" value={fmtRate(totalRps)} testid="tile-rps" />
        <Tile label="Policy version" value={s ? `v${s.policyVersion}` : '—'} />
        <Tile
          label="Instances"
          value={s ? String(s.instances.length) : '—'}
          note={
            s
              ? s.aggregated
                ? 'summed over all'
                : s.partial
                  ? 'Redis down: this one only'
                  : 'this instance'
              : ''
          }
        />
        <Tile
          label="Load level"
          value={s?.load ? String(s.load.level) : '—'}
          note={s?.load?.detail ?? (s?.load ? '' : 'no rate-limit lock')}
        />
        <Tile
          label="Redis memory"
          value={s?.redis ? fmtBytes(s.redis.usedMemoryBytes) : '—'}
          note={
            s?.redis
              ? s.redis.maxMemoryBytes > 0
                ? `of ${fmtBytes(s.redis.maxMemoryBytes)}`
                : 'no maxmemory set'
              : 'no Redis (memory stores)'
          }
        />
        <Tile
          label="Rate-limit keys"
          value={s?.redis ? fmtInt(s.redis.rateLimitKeys) : '—'}
          note={s?.redis?.estimated ? 'estimated' : s?.redis ? 'sampled' : ''}
        />
      </div>
      <Card title="Requests per second by policy">
        <Chart
          title="Requests per second by policy"
          columns={requestColumns(series.points, policies)}
          lines={requestLines}
        />
      </Card>
      <div class="grid-charts">
        {locks.map((lock) => (
          <Card key={lock} title={`${lock} outcomes per second`}>
            <Chart
              title={`${lock} outcomes per second`}
              columns={lockColumns(series.points, lock)}
              lines={OUTCOME_LINES}
              height={120}
            />
          </Card>
        ))}
      </div>
      {s ? <CountersTables status={s} locks={locks} rates={rates} /> : null}
      {s ? <InstancesTable status={s} /> : null}
    </>
  );
}

function Tile({
  label,
  value,
  note,
  testid,
}: {
  label: string;
  value: string;
  note?: string;
  testid?: string;
}) {
  return (
    <div class="tile">
      <span class="tile-label">{label}</span>
      <span class="tile-value" data-testid={testid}>
        {value}
      </span>
      {note ? <span class="tile-note">{note}</span> : null}
    </div>
  );
}
