import { Card, Empty, StateBadge } from '../components/bits.js';
import { useConsole } from '../lib/context.js';
import { fmtInt, fmtRatio, fmtRelative } from '../lib/format.js';
import { useNow, usePoll } from '../lib/hooks.js';
import { type BotView, fmtLag } from '../lib/telegram.js';
import { BotActions } from './bot-actions.js';
import { RotateToken } from './rotate-token.js';

const TONE = { active: 'ok', cooldown: 'warn', disabled: 'warn', revoked: 'bad' } as const;

/** Every bot: state, 429 ratio, its queues; pause, resume, lift a cooldown; token rotation with drain. */
export function Bots() {
  const { api } = useConsole();
  const bots = usePoll(() => api.get<{ bots: BotView[] }>('/admin/telegram/bots'), 2000, [api]);
  const now = useNow(1000);
  const list = bots.data?.bots;
  return (
    <>
      <h1>Bots</h1>
      <p class="muted">
        States are shared by every instance. The 429 ratio counts Telegram's answers over the last
        15 minutes; queue and lag are the bot's scope queue and its pinned jobs.
      </p>
      {bots.error ? (
        <p class="error" role="alert">
          Bots unavailable: {bots.error.message}
        </p>
      ) : null}
      {list && list.length === 0 ? <Empty>No Telegram bot is configured.</Empty> : null}
      {list && list.length > 0 ? (
        <Card title="Bots">
          <div class="table-wrap">
            <table>
              <thead>
                <tr>
                  <th>Bot</th>
                  <th>Scope</th>
                  <th>State</th>
                  <th>Health</th>
                  <th class="num">429 ratio (15 min)</th>
                  <th class="num">Queue</th>
                  <th class="num">Lag</th>
                  <th class="num">In flight</th>
                  <th>Token</th>
                  <th>Actions</th>
                </tr>
              </thead>
              <tbody>
                {list.map((b) => (
                  <tr key={b.id} data-testid={`bot-${b.id}`}>
                    <th scope="row">{b.id}</th>
                    <td>{b.scope}</td>
                    <td data-testid={`bot-state-${b.id}`}>
                      <StateBadge state={b.state} tone={TONE[b.state]} />
                      {b.state === 'cooldown' && b.until ? (
                        <small> ends {fmtRelative(Date.parse(b.until), now)}</small>
                      ) : null}
                      {b.rotating ? <small> rotating</small> : null}
                    </td>
                    <td>{b.health}</td>
                    <td class="num" data-testid={`bot-429-${b.id}`}>
                      {fmtRatio(b.rate_limited_ratio)}
                      <small>
                        {' '}
                        ({fmtInt(b.rate_limited_15m)} of {fmtInt(b.answers_15m)})
                      </small>
                    </td>
                    <td class="num" data-testid={`bot-queue-${b.id}`}>
                      {fmtInt(b.queue_jobs)}
                    </td>
                    <td class="num">{fmtLag(b.queue_lag_ms)}</td>
                    <td class="num">{fmtInt(b.inflight)}</td>
                    <td>
                      <code>{b.token}</code>
                    </td>
                    <td data-testid={`bot-actions-${b.id}`}>
                      <BotActions bot={b} onDone={bots.reload} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </Card>
      ) : null}
      {list && list.length > 0 ? <RotateToken bots={list} onDone={bots.reload} /> : null}
    </>
  );
}
