import { useEffect, useState } from 'preact/hooks';
import { Card, ConfirmButton, Empty, Problems } from '../components/bits.js';
import { ApiError } from '../lib/api.js';
import { useConsole } from '../lib/context.js';
import { Difference, diffJson } from '../lib/diff.js';
import { fmtTime, fmtValue } from '../lib/format.js';
import { usePoll } from '../lib/hooks.js';
import type { ChangeAnswer, PolicyVersion, PolicyVersionMeta } from '../lib/types.js';

type Versions = { active: number; historyLimit: number; versions: PolicyVersionMeta[] };

/** Stored policy versions: who made each, a diff between any two, and rollback. */
export function Versions() {
  const { api, reloadConfig, notify } = useConsole();
  const list = usePoll(() => api.get<Versions>('/admin/policies/versions'), 10_000, [api]);
  const [pair, setPair] = useState<{ a?: number; b?: number }>({});
  const [diff, setDiff] = useState<Difference[] | undefined>(undefined);
  const [problems, setProblems] = useState<string[]>([]);
  const v = list.data;
  const a = pair.a ?? (v && v.versions[1]?.version);
  const b = pair.b ?? (v && v.versions[0]?.version);

  useEffect(() => {
    setDiff(undefined);
    if (a === undefined || b === undefined) return;
    let alive = true;
    Promise.all([a, b].map((n) => api.get<PolicyVersion>(`/admin/policies/versions/${n}`))).then(
      ([x, y]) => alive && setDiff(diffJson(x!.policies, y!.policies)),
      (e: unknown) => alive && setProblems([(e as Error).message]),
    );
    return () => {
      alive = false;
    };
  }, [a, b, api]);

  const rollback = async (version: number) => {
    setProblems([]);
    try {
      const r = await api.post<ChangeAnswer>('/admin/policies/rollback', { version });
      notify(
        r.changed
          ? `Rolled back to the content of v${version}: now v${r.version}`
          : `v${version} was already in force`,
      );
      reloadConfig();
      list.reload();
    } catch (e) {
      setProblems(e instanceof ApiError ? (e.problem.problems ?? [e.message]) : [String(e)]);
    }
  };

  return (
    <>
      <h1>Configuration versions</h1>
      <p class="muted">
        Every change is a new version, made by the token named in <em>who</em>. A rollback makes the
        content of an older version active again, as a new version: history is never rewritten.
        {v ? ` The last ${v.historyLimit} versions are kept.` : ''}
      </p>
      <Problems items={problems} />
      {v && v.versions.length === 0 ? (
        <Empty>
          No change was made yet: the policies in force are the shipped ones and CONFIG_FILE's.
        </Empty>
      ) : null}
      {v && v.versions.length > 0 ? (
        <Card title="Versions">
          <div class="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">From</th>
                  <th scope="col">To</th>
                  <th scope="col">Version</th>
                  <th scope="col">When</th>
                  <th scope="col">Who</th>
                  <th scope="col">What</th>
                  <th scope="col">
                    <span class="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {v.versions.map((x) => (
                  <tr key={x.version} data-testid={`version-${x.version}`}>
                    <td>
                      <input
                        type="radio"
                        name="diff-a"
                        aria-label={`Compare from v${x.version}`}
                        checked={a === x.version}
                        onChange={() => setPair((p) => ({ ...p, a: x.version }))}
                      />
                    </td>
                    <td>
                      <input
                        type="radio"
                        name="diff-b"
                        aria-label={`Compare to v${x.version}`}
                        checked={b === x.version}
                        onChange={() => setPair((p) => ({ ...p, b: x.version }))}
                      />
                    </td>
                    <th scope="row">
                      v{x.version}{' '}
                      {x.version === v.active ? <span class="badge tone-ok">active</span> : null}
                    </th>
                    <td>{fmtTime(x.at)}</td>
                    <td>{x.actor}</td>
                    <td>{x.summary}</td>
                    <td>
                      {x.version !== v.active ? (
                        <ConfirmButton
                          label="Roll back to this"
                          confirm={`Make v${x.version}'s policies active again?`}
                          onConfirm={() => void rollback(x.version)}
                        />
                      ) : null}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </Card>
      ) : null}
      {a !== undefined && b !== undefined ? (
        <Card title={`Changes from v${a} to v${b}`}>
          {diff === undefined ? <p class="muted">Loading…</p> : <DiffList items={diff} />}
        </Card>
      ) : null}
    </>
  );
}

export function DiffList({ items }: { items: readonly Difference[] }) {
  if (items.length === 0) return <Empty>No difference.</Empty>;
  return (
    <ul class="diff" data-testid="diff">
      {items.map((d) => (
        <li key={d.path}>
          <code>{d.path}</code>: {'from' in d ? <del>{fmtValue(d.from)}</del> : <em>added</em>} →{' '}
          {'to' in d ? <ins>{fmtValue(d.to)}</ins> : <em>removed</em>}
        </li>
      ))}
    </ul>
  );
}
