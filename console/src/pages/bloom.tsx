import { useState } from 'preact/hooks';
import { Card, ConfirmButton, Empty, Problems } from '../components/bits.js';
import { ApiError } from '../lib/api.js';
import { useConsole } from '../lib/context.js';
import { useNow, usePoll } from '../lib/hooks.js';
import type { BloomFilterStatus } from '../lib/types.js';
import { BuildFacts } from './bloom-facts.js';

type Running = { filter: string; action: 'rebuild' | 'rollback'; startedAt: number };

/** Every Bloom filter: its active and previous builds; rebuild and roll back with progress. */
export function Bloom() {
  const { api, notify } = useConsole();
  const [running, setRunning] = useState<Running | undefined>(undefined);
  const [problems, setProblems] = useState<Record<string, string[]>>({});
  const status = usePoll(
    () => api.get<{ filters: BloomFilterStatus[] }>('/admin/bloom'),
    running ? 1000 : 5000,
    [api, running !== undefined],
  );
  const now = useNow(500);

  if (status.error instanceof ApiError && status.error.problem.error === 'lock_not_installed')
    return <Empty>The cache-shield lock is not installed in this service.</Empty>;

  const act = async (filter: string, action: Running['action']) => {
    setRunning({ filter, action, startedAt: Date.now() });
    setProblems((p) => ({ ...p, [filter]: [] }));
    try {
      const r = await api.post<{ filters: BloomFilterStatus[] }>(`/admin/bloom/${action}`, {
        filter,
      });
      const f = r.filters.find((x) => x.name === filter);
      notify(
        `${filter}: ${action === 'rebuild' ? 'rebuilt' : 'rolled back'}, v${f?.active?.version ?? '?'} active`,
      );
    } catch (e) {
      const list = e instanceof ApiError ? (e.problem.problems ?? [e.message]) : [String(e)];
      setProblems((p) => ({ ...p, [filter]: list }));
    } finally {
      setRunning(undefined);
      status.reload();
    }
  };

  return (
    <>
      <h1>Bloom filters</h1>
      <p class="muted">
        A filter answers “definitely absent” for keys that cannot exist, so junk never reaches the
        backend. A rebuild makes a new version from the backend's own data, checks its
        false-positive rate by sampling and switches atomically; the previous version stays for a
        rollback.
      </p>
      {!status.data && !status.error ? <p class="muted">Loading…</p> : null}
      {status.data?.filters.length === 0 ? <Empty>No filters.</Empty> : null}
      <div class="grid-2">
        {status.data?.filters.map((f) => {
          const mine = running?.filter === f.name;
          const busy = mine || f.building;
          return (
            <Card
              key={f.name}
              id={`bloom-${f.name}`}
              title={f.name}
              actions={
                <>
                  <button
                    type="button"
                    disabled={running !== undefined || f.building}
                    onClick={() => void act(f.name, 'rebuild')}
                  >
                    Rebuild
                  </button>
                  <ConfirmButton
                    label="Roll back"
                    confirm={`Activate v${f.previous?.version ?? '?'} again?`}
                    disabled={running !== undefined || f.building || !f.previous}
                    onConfirm={() => void act(f.name, 'rollback')}
                  />
                </>
              }
            >
              {busy ? (
                <div
                  class="progress"
                  role="progressbar"
                  aria-label={`${f.name} ${running?.action ?? 'build'} running`}
                  aria-busy="true"
                >
                  <span class="progress-bar" />
                  <span>
                    {mine
                      ? `${running.action === 'rebuild' ? 'Building and validating' : 'Switching'}… ${Math.round((now - running.startedAt) / 1000)} s`
                      : 'A build is running (started elsewhere)…'}
                  </span>
                </div>
              ) : null}
              <Problems items={problems[f.name] ?? []} />
              <BuildFacts title="Active" build={f.active} />
              {f.previous ? (
                <BuildFacts title="Previous (rollback target)" build={f.previous} compact />
              ) : null}
            </Card>
          );
        })}
      </div>
    </>
  );
}
