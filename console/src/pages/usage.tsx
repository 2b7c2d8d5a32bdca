import { useState } from 'preact/hooks';
import { Card, Empty } from '../components/bits.js';
import { useConsole } from '../lib/context.js';
import { usePoll } from '../lib/hooks.js';

/** One row of `GET /admin/usage` (docs/admin-api.md#usage). */
export interface UsageRow {
  start: string;
  app: string;
  model: string;
  promptTokens: number;
  completionTokens: number;
  spendMicros: number;
}

interface UsageAnswer {
  rows: UsageRow[];
  totals: Omit<UsageRow, 'start' | 'app' | 'model'>;
  truncated: boolean;
}

/** Micro-dollars as USD: cents from a dollar up, hundredths of a cent below it. */
export function fmtUsd(micros: number): string {
  const usd = micros / 1_000_000;
  return `$${usd >= 1 || usd === 0 ? usd.toFixed(2) : usd.toFixed(4)}`;
}

const fmtInt = (n: number) => n.toLocaleString('en-US');

/** Tokens and spend per day, per app and model, over the last 7 or 30 days (the rate-limit lock's usage record). */
export function Usage() {
  const { api } = useConsole();
  const [days, setDays] = useState(7);
  const [app, setApp] = useState('');
  // From the start of the first day (UTC): the query stays the same all day (a poll, not a new load per render).
  const from = new Date((Math.floor(Date.now() / 86_400_000) - days + 1) * 86_400_000);
  const q = `period=day&from=${from.toISOString()}${app ? `&app=${encodeURIComponent(app)}` : ''}`;
  const usage = usePoll(() => api.get<UsageAnswer>(`/admin/usage?${q}`), 60_000, [api, q]);
  const rows = [...(usage.data?.rows ?? [])].sort(
    (a, b) => b.start.localeCompare(a.start) || a.app.localeCompare(b.app),
  );

  return (
    <>
      <h1>Usage</h1>
      <p class="muted">
        Tokens and spend per day, per app and model, as the upstreams reported them when each answer
        ended (spend: tokens × <code>inference.prices</code>). Users appear only in the admin API,
        by their keyed hash.
      </p>
      <div class="toolbar">
        <label>
          Days{' '}
          <select
            value={String(days)}
            onChange={(e) => setDays(Number((e.target as HTMLSelectElement).value))}
          >
            <option value="7">7</option>
            <option value="30">30</option>
          </select>
        </label>{' '}
        <label>
          App{' '}
          <input
            value={app}
            placeholder="every app"
            data-testid="usage-app"
            onChange={(e) => setApp((e.target as HTMLInputElement).value.trim())}
          />
        </label>
      </div>
      {usage.error ? <p class="error">{usage.error.message}</p> : null}
      {usage.data && rows.length === 0 ? <Empty>No usage recorded in this range.</Empty> : null}
      {rows.length > 0 ? (
        <Card title={`Total ${fmtUsd(usage.data!.totals.spendMicros)}`}>
          <div class="table-wrap">
            <table data-testid="usage-table">
              <thead>
                <tr>
                  <th scope="col">Day (UTC)</th>
                  <th scope="col">App</th>
                  <th scope="col">Model</th>
                  <th scope="col">Prompt tokens</th>
                  <th scope="col">Completion tokens</th>
                  <th scope="col">Spend</th>
                </tr>
              </thead>
              <tbody>
                {rows.map((r) => (
                  <tr key={`${r.start}|${r.app}|${r.model}`}>
                    <td>{r.start.slice(0, 10)}</td>
                    <td>{r.app}</td>
                    <td>
                      <code>{r.model}</code>
                    </td>
                    <td>{fmtInt(r.promptTokens)}</td>
                    <td>{fmtInt(r.completionTokens)}</td>
                    <td>{fmtUsd(r.spendMicros)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          {usage.data?.truncated ? <p class="muted">Only the first rows: name an app.</p> : null}
        </Card>
      ) : null}
    </>
  );
}
