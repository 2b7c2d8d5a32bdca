import { Card, Empty } from '../components/bits.js';
import { useConsole } from '../lib/context.js';
import { fmtInt } from '../lib/format.js';
import { usePoll } from '../lib/hooks.js';
import { type QueueView, fmtLag } from '../lib/telegram.js';

/** The outbound queues: jobs, chats waiting and lag per scope and per pinned bot (never a chat). */
export function Queues() {
  const { api } = useConsole();
  const q = usePoll(
    () => api.get<{ queues: QueueView[]; truncated: boolean }>('/admin/telegram/queues'),
    2000,
    [api],
  );
  const list = q.data?.queues;
  return (
    <>
      <h1>Queues</h1>
      <p class="muted">
        One queue per bot scope (its bots share it) and one per bot with pinned jobs (its built-in
        replies). Lag is how long the oldest waiting job has been due. Read from the shared queue:
        every instance shows the same.
      </p>
      {q.error ? (
        <p class="error" role="alert">
          Queues unavailable: {q.error.message}
        </p>
      ) : null}
      {q.data?.truncated ? (
        <p class="muted" role="status">
          Very many chats are waiting: the counts are of the first 10 000 per partition.
        </p>
      ) : null}
      {list && list.length === 0 ? <Empty>No Telegram bot is configured.</Empty> : null}
      {list && list.length > 0 ? (
        <Card title="Queues">
          <div class="table-wrap">
            <table>
              <thead>
                <tr>
                  <th>Queue</th>
                  <th>Bots</th>
                  <th class="num">Jobs</th>
                  <th class="num">Chats waiting</th>
                  <th class="num">Lag</th>
                </tr>
              </thead>
              <tbody>
                {list.map((v) => (
                  <tr key={v.queue} data-testid={`queue-${v.queue}`}>
                    <th scope="row">
                      {v.queue} <small>{v.kind === 'bot' ? 'pinned' : 'scope'}</small>
                    </th>
                    <td>{v.bots.join(', ')}</td>
                    <td class="num" data-testid={`queue-jobs-${v.queue}`}>
                      {fmtInt(v.jobs)}
                    </td>
                    <td class="num">{fmtInt(v.lanes)}</td>
                    <td class="num" data-testid={`queue-lag-${v.queue}`}>
                      {fmtLag(v.lag_ms)}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </Card>
      ) : null}
    </>
  );
}
