import { useState } from 'preact/hooks';
import { Card, ConfirmButton, Empty, Problems, StateBadge } from '../components/bits.js';
import { SecretOnce } from '../components/secret-once.js';
import { ApiError, seg } from '../lib/api.js';
import { useConsole } from '../lib/context.js';
import { fmtTime } from '../lib/format.js';
import { usePoll } from '../lib/hooks.js';
import type { ClientAppView, OneTimeSecret } from '../lib/types.js';
import { CreateApp } from './create-app.js';
import { RetireSecret } from './retire-secret.js';

type WithSecret = { app: ClientAppView; secret: OneTimeSecret };

/** API client apps of the signature lock: create, rotate and retire secrets, deactivate. */
export function Apps() {
  const { api, notify } = useConsole();
  const list = usePoll(() => api.get<{ apps: ClientAppView[] }>('/admin/apps'), 10_000, [api]);
  // A new secret lives only here, until "Done": never in storage, never fetched again.
  const [fresh, setFresh] = useState<WithSecret | undefined>(undefined);
  const [problems, setProblems] = useState<string[]>([]);

  if (list.error instanceof ApiError && list.error.problem.error === 'lock_not_installed')
    return <Empty>The signature lock is not installed in this service.</Empty>;

  const run = async <T,>(call: () => Promise<T>, done: (t: T) => string) => {
    setProblems([]);
    try {
      const r = await call();
      notify(done(r));
      list.reload();
      return r;
    } catch (e) {
      setProblems(e instanceof ApiError ? (e.problem.problems ?? [e.message]) : [String(e)]);
      return undefined;
    }
  };
  const rotate = async (id: string) => {
    const r = await run(
      () => api.post<WithSecret>(`/admin/apps/${seg(id)}/secrets`),
      (x) => `${id}: new secret ${x.secret.id} added; older secrets work until retired`,
    );
    if (r) setFresh(r);
  };

  return (
    <>
      <h1>Apps</h1>
      {fresh ? (
        <SecretOnce appId={fresh.app.id} secret={fresh.secret} onDone={() => setFresh(undefined)} />
      ) : null}
      <CreateApp
        onCreated={(r) => {
          setFresh(r);
          list.reload();
        }}
      />
      <Card title="Every app">
        <Problems items={problems} />
        {list.data?.apps.length === 0 ? <Empty>No apps yet.</Empty> : null}
        <div class="table-wrap" hidden={!list.data?.apps.length}>
          <table>
            <thead>
              <tr>
                <th scope="col">App</th>
                <th scope="col">Tier</th>
                <th scope="col">State</th>
                <th scope="col">Secrets</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {list.data?.apps.map((a) => (
                <tr key={a.id} data-testid={`app-${a.id}`}>
                  <th scope="row">{a.id}</th>
                  <td>{a.tier}</td>
                  <td>
                    {a.active ? (
                      <StateBadge state="active" tone="ok" />
                    ) : (
                      <StateBadge state="deactivated" tone="bad" />
                    )}
                  </td>
                  <td>
                    <ul class="secrets">
                      {a.secrets.map((s) => (
                        <li key={s.id}>
                          <code>{s.id}</code>{' '}
                          {s.expired ? (
                            <StateBadge state="expired" tone="bad" />
                          ) : s.notAfter ? (
                            <small>until {fmtTime(s.notAfter)}</small>
                          ) : null}{' '}
                          {!s.expired ? (
                            <RetireSecret
                              app={a.id}
                              secret={s.id}
                              onRetire={(body) =>
                                void run(
                                  () =>
                                    api.post<ClientAppView>(
                                      `/admin/apps/${seg(a.id)}/secrets/${seg(s.id)}/retire`,
                                      body,
                                    ),
                                  () =>
                                    `${a.id}: secret ${s.id} ${body ? `retires at ${fmtTime(body.notAfter)}` : 'retired'}`,
                                )
                              }
                            />
                          ) : null}
                        </li>
                      ))}
                    </ul>
                  </td>
                  <td class="actions">
                    <ConfirmButton
                      label="Rotate"
                      confirm="Add a new secret?"
                      onConfirm={() => void rotate(a.id)}
                    />
                    {a.active ? (
                      <ConfirmButton
                        label="Deactivate"
                        danger
                        confirm={`Refuse every request of ${a.id}?`}
                        onConfirm={() =>
                          void run(
                            () => api.post(`/admin/apps/${seg(a.id)}/deactivate`),
                            () => `${a.id} deactivated`,
                          )
                        }
                      />
                    ) : (
                      <button
                        type="button"
                        onClick={() =>
                          void run(
                            () => api.post(`/admin/apps/${seg(a.id)}/activate`),
                            () => `${a.id} active again`,
                          )
                        }
                      >
                        Activate
                      </button>
                    )}
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
