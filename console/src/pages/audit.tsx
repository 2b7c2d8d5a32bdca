import { useState } from 'preact/hooks';
import { Card, Empty } from '../components/bits.js';
import { useConsole } from '../lib/context.js';
import { fmtTime, fmtValue } from '../lib/format.js';
import { usePoll } from '../lib/hooks.js';
import type { AuditEntry } from '../lib/types.js';

type Page = { entries: AuditEntry[]; next?: string };

/** Who changed what, when: newest first, older pages on demand. Secret values are never in it. */
export function Audit() {
  const { api } = useConsole();
  const first = usePoll(() => api.get<Page>('/admin/audit?limit=50'), 10_000, [api]);
  const [older, setOlder] = useState<AuditEntry[]>([]);
  const [next, setNext] = useState<string | undefined | null>(null);
  const cursor = next === null ? first.data?.next : next;
  const entries = [...(first.data?.entries ?? []), ...older];

  const more = async () => {
    if (!cursor) return;
    const p = await api.get<Page>(`/admin/audit?limit=50&before=${encodeURIComponent(cursor)}`);
    setOlder((o) => [...o, ...p.entries]);
    setNext(p.next);
  };

  return (
    <>
      <h1>Audit log</h1>
      {first.data && entries.length === 0 ? <Empty>No change was made yet.</Empty> : null}
      {entries.length > 0 ? (
        <Card title="Changes, newest first">
          <div class="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">When</th>
                  <th scope="col">Who</th>
                  <th scope="col">Action</th>
                  <th scope="col">What</th>
                </tr>
              </thead>
              <tbody>
                {entries.map((e) => (
                  <tr key={e.id}>
                    <td>{fmtTime(e.at)}</td>
                    <td>{e.actor}</td>
                    <td>
                      <code>{e.action}</code>
                      {e.version !== undefined ? <small> → v{e.version}</small> : null}
                    </td>
                    <td>
                      <details>
                        <summary>{e.summary}</summary>
                        <ul class="diff">
                          {e.changes.map((c) => (
                            <li key={c.path}>
                              <code>{c.path}</code>:{' '}
                              {'from' in c ? <del>{fmtValue(c.from)}</del> : <em>added</em>} →{' '}
                              {'to' in c ? <ins>{fmtValue(c.to)}</ins> : <em>removed</em>}
                            </li>
                          ))}
                        </ul>
                      </details>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          {cursor ? (
            <button type="button" onClick={() => void more()}>
              Older entries
            </button>
          ) : null}
        </Card>
      ) : null}
    </>
  );
}
