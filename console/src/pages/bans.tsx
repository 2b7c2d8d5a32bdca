import { useState } from 'preact/hooks';
import { Card, ConfirmButton, Empty, Problems } from '../components/bits.js';
import { ApiError, seg } from '../lib/api.js';
import { banScope, type BanView } from '../lib/bans.js';
import { useConsole } from '../lib/context.js';
import { fmtTime } from '../lib/format.js';
import { usePoll } from '../lib/hooks.js';
import { NewBan } from './new-ban.js';

/** Bans of the rate-limit lock (docs/console.md#bans): set one, see them lapse, lift one. */
export function Bans() {
  const { api, notify } = useConsole();
  const list = usePoll(() => api.get<{ bans: BanView[]; max: number }>('/admin/bans'), 5_000, [
    api,
  ]);
  const [problems, setProblems] = useState<string[]>([]);

  if (list.error instanceof ApiError && list.error.problem.error === 'lock_not_installed')
    return <Empty>The rate-limit lock is not installed in this service.</Empty>;

  const lift = async (b: BanView) => {
    setProblems([]);
    try {
      await api.del(`/admin/bans/${seg(b.id)}`);
      notify(`ban of ${b.dimension} ${b.subject} lifted`);
      list.reload();
    } catch (e) {
      setProblems(e instanceof ApiError ? (e.problem.problems ?? [e.message]) : [String(e)]);
    }
  };

  return (
    <>
      <h1>Bans</h1>
      <NewBan onSet={() => list.reload()} />
      <Card title="Bans in force">
        <Problems items={problems} />
        {list.data?.bans.length === 0 ? <Empty>No bans.</Empty> : null}
        <div class="table-wrap" hidden={!list.data?.bans.length}>
          <table>
            <thead>
              <tr>
                <th scope="col">Dimension</th>
                <th scope="col">Subject (hash)</th>
                <th scope="col">Applies to</th>
                <th scope="col">Until</th>
                <th scope="col">Reason</th>
                <th scope="col">Set by</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {list.data?.bans.map((b) => (
                <tr key={b.id} data-testid={`ban-${b.id}`}>
                  <th scope="row">{b.dimension}</th>
                  <td>
                    <code>{b.subject}</code>
                  </td>
                  <td>{banScope(b)}</td>
                  <td>{fmtTime(b.until)}</td>
                  <td>{b.reason ?? ''}</td>
                  <td>{b.actor}</td>
                  <td class="actions">
                    <ConfirmButton
                      label="Lift"
                      confirm={`Lift the ban of ${b.dimension} ${b.subject}?`}
                      onConfirm={() => void lift(b)}
                    />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </Card>
    </>
  );
}
