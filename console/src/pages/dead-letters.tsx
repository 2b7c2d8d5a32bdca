import { useState } from 'preact/hooks';
import { Card, ConfirmButton, Empty, Problems } from '../components/bits.js';
import { ApiError } from '../lib/api.js';
import { useConsole } from '../lib/context.js';
import { fmtTime } from '../lib/format.js';
import { usePoll } from '../lib/hooks.js';
import { type DeadFilter, type DeadJob, choices, filterDead } from '../lib/telegram.js';

/** Dead-lettered jobs, filtered by reason and app; replay one, the selected or all of a reason. */
export function DeadLetters() {
  const { api, notify } = useConsole();
  const dead = usePoll(
    () => api.get<{ jobs: DeadJob[] }>('/admin/telegram/dead?limit=1000'),
    5000,
    [api],
  );
  const [filter, setFilter] = useState<DeadFilter>({ reason: '', app: '' });
  const [picked, setPicked] = useState<Set<string>>(new Set());
  const [problems, setProblems] = useState<string[]>([]);
  const all = dead.data?.jobs ?? [];
  const shown = filterDead(all, filter);
  const selected = shown.filter((j) => picked.has(j.ref));

  const replay = async (jobs: readonly DeadJob[], what: string) => {
    setProblems([]);
    try {
      const r = await api.post<{ replayed: string[] }>('/admin/telegram/dead/replay', {
        job_ids: jobs.map((j) => j.ref),
      });
      notify(`${what}: ${r.replayed.length} of ${jobs.length} queued again`);
      setPicked(new Set());
      dead.reload();
    } catch (e) {
      setProblems(e instanceof ApiError ? (e.problem.problems ?? [e.message]) : [String(e)]);
    }
  };
  const toggle = (ref: string, on: boolean) =>
    setPicked((p) => {
      const n = new Set(p);
      if (on) n.add(ref);
      else n.delete(ref);
      return n;
    });

  return (
    <>
      <h1>Dead letters</h1>
      <p class="muted">
        Jobs the sender gave up on, newest first (up to 1000). A replay queues a job again at the
        end of its chat's queue, with its attempts reset and a new deadline.
      </p>
      {dead.error ? (
        <p class="error" role="alert">
          Dead letters unavailable: {dead.error.message}
        </p>
      ) : null}
      <div class="row" role="group" aria-label="Filter">
        <label for="dead-reason">Reason</label>
        <select
          id="dead-reason"
          value={filter.reason}
          onChange={(e) => setFilter({ ...filter, reason: e.currentTarget.value })}
        >
          <option value="">any</option>
          {choices(all, 'reason').map((r) => (
            <option key={r} value={r}>
              {r}
            </option>
          ))}
        </select>
        <label for="dead-app">App</label>
        <select
          id="dead-app"
          value={filter.app}
          onChange={(e) => setFilter({ ...filter, app: e.currentTarget.value })}
        >
          <option value="">any</option>
          {choices(all, 'app').map((a) => (
            <option key={a} value={a}>
              {a}
            </option>
          ))}
        </select>
        <ConfirmButton
          label={`Replay selected (${selected.length})`}
          confirm={`Queue ${selected.length} job(s) again?`}
          disabled={selected.length === 0}
          onConfirm={() => void replay(selected, 'Replay of the selected')}
        />
        {filter.reason ? (
          <ConfirmButton
            label={`Replay all ${filter.reason} (${shown.length})`}
            confirm={`Queue all ${shown.length} shown job(s) dead for ${filter.reason} again?`}
            disabled={shown.length === 0}
            onConfirm={() => void replay(shown, `Replay of every ${filter.reason}`)}
          />
        ) : null}
      </div>
      <Problems items={problems} />
      {dead.data && shown.length === 0 ? (
        <Empty>No dead letters{filter.reason || filter.app ? ' match the filter' : ''}.</Empty>
      ) : null}
      {shown.length > 0 ? (
        <Card title={`${shown.length} dead job(s)`}>
          <div class="table-wrap">
            <table>
              <thead>
                <tr>
                  <th>Pick</th>
                  <th>Job</th>
                  <th>App</th>
                  <th>Reason</th>
                  <th>Method</th>
                  <th>Bot</th>
                  <th class="num">Attempts</th>
                  <th>Last error</th>
                  <th>Dead at</th>
                  <th>Replay</th>
                </tr>
              </thead>
              <tbody>
                {shown.map((j) => (
                  <tr key={j.ref} data-testid={`dead-${j.job_id}`}>
                    <td>
                      <input
                        type="checkbox"
                        aria-label={`Pick ${j.job_id}`}
                        checked={picked.has(j.ref)}
                        onChange={(e) => toggle(j.ref, e.currentTarget.checked)}
                      />
                    </td>
                    <th scope="row">{j.job_id}</th>
                    <td>{j.app}</td>
                    <td>{j.reason ?? '—'}</td>
                    <td>{j.method}</td>
                    <td>{j.bot ?? j.bot_scope}</td>
                    <td class="num">{j.attempts}</td>
                    <td>
                      <small>{j.last_error ?? '—'}</small>
                    </td>
                    <td>{j.finished_at ? fmtTime(j.finished_at) : '—'}</td>
                    <td>
                      <ConfirmButton
                        label="Replay"
                        confirm={`Queue ${j.job_id} again?`}
                        onConfirm={() => void replay([j], `Replay of ${j.job_id}`)}
                      />
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
