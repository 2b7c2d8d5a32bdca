import { useState } from 'preact/hooks';
import { Card, ConfirmButton, Empty, Problems, StateBadge } from '../components/bits.js';
import { ExpiryPicker } from '../components/expiry-picker.js';
import { ApiError, seg } from '../lib/api.js';
import { useConsole } from '../lib/context.js';
import { expiryInstant } from '../lib/expiry.js';
import { fmtTime } from '../lib/format.js';
import { useNow, usePoll } from '../lib/hooks.js';
import type { BreakerStatus, ChangeAnswer } from '../lib/types.js';
import { BreakerFacts } from './breaker-facts.js';

const TONE: Record<string, 'ok' | 'warn' | 'bad'> = {
  closed: 'ok',
  forced_closed: 'warn',
  recovering: 'warn',
  half_open: 'warn',
  open: 'bad',
  forced_open: 'bad',
};

/** One breaker per backend: state, recent failures and latency; force open or closed, reset. */
export function Breakers() {
  const { api, config, reloadConfig, notify } = useConsole();
  const status = usePoll(() => api.get<{ breakers: BreakerStatus[] }>('/admin/breakers'), 2000, [
    api,
  ]);
  const now = useNow(1000);
  const [problems, setProblems] = useState<Record<string, string[]>>({});
  const [choice, setChoice] = useState<Record<string, { id: string; at: string }>>({});

  if (status.error instanceof ApiError && status.error.problem.error === 'lock_not_installed')
    return <Empty>The circuit-breaker lock is not installed in this service.</Empty>;

  const run = async (b: BreakerStatus, what: string, call: () => Promise<ChangeAnswer>) => {
    setProblems((p) => ({ ...p, [b.name]: [] }));
    try {
      const a = await call();
      notify(`${b.name}: ${what} (policy v${a.version})`);
      reloadConfig();
      status.reload();
    } catch (e) {
      const list = e instanceof ApiError ? (e.problem.problems ?? [e.message]) : [String(e)];
      setProblems((p) => ({ ...p, [b.name]: list }));
    }
  };
  const force = (b: BreakerStatus, state: 'open' | 'closed') => {
    const c = choice[b.name] ?? { id: '15m', at: '' };
    let until: string | undefined;
    try {
      until = expiryInstant(c.id, Date.now(), c.at);
    } catch (e) {
      setProblems((p) => ({ ...p, [b.name]: [(e as Error).message] }));
      return;
    }
    void run(b, `forced ${state}${until ? ` until ${fmtTime(until)}` : ''}`, () =>
      api.put<ChangeAnswer>(
        `/admin/breakers/${seg(b.policies[0]!)}/force`,
        until ? { state, until } : { state },
      ),
    );
  };
  // A force may sit on any policy of the backend: remove it from each one that has it.
  const unforce = (b: BreakerStatus) => {
    const forced = b.policies.filter(
      (p) => config.policySet.policies[p]?.locks.circuitBreaker?.force !== undefined,
    );
    void run(b, 'force removed', async () => {
      let last: ChangeAnswer | undefined;
      for (const p of forced.length > 0 ? forced : b.policies.slice(0, 1))
        last = await api.del<ChangeAnswer>(`/admin/breakers/${seg(p)}/force`);
      return last!;
    });
  };

  return (
    <>
      <h1>Breakers</h1>
      <p class="muted">
        Failures and timeouts count in each breaker's rolling window; latency is this instance's
        calls over about the last minute.
      </p>
      <div class="grid-2">
        {status.data?.breakers.map((b) => {
          const phase = b.phase ?? b.state;
          const c = choice[b.name] ?? { id: '15m', at: '' };
          return (
            <Card
              key={b.name}
              id={`breaker-${b.name}`}
              title={
                <>
                  {b.name} <StateBadge state={phase} tone={TONE[phase]} />
                </>
              }
            >
              <BreakerFacts b={b} now={now} />
              <Problems items={problems[b.name] ?? []} />
              <div class="row">
                <ExpiryPicker
                  id={`force-${b.name}`}
                  label="Force"
                  choice={c.id}
                  at={c.at}
                  onChoice={(id) => setChoice((x) => ({ ...x, [b.name]: { ...c, id } }))}
                  onAt={(at) => setChoice((x) => ({ ...x, [b.name]: { ...c, at } }))}
                />
                <ConfirmButton
                  label="Force open"
                  danger
                  confirm="Refuse every call?"
                  onConfirm={() => force(b, 'open')}
                />
                <button type="button" onClick={() => force(b, 'closed')}>
                  Force closed
                </button>
              </div>
              <div class="row">
                <button type="button" disabled={!b.forced} onClick={() => unforce(b)}>
                  Remove force
                </button>
                <button
                  type="button"
                  onClick={() =>
                    void run(b, 'reset', () =>
                      api.post<ChangeAnswer>(`/admin/breakers/${seg(b.policies[0]!)}/reset`),
                    )
                  }
                >
                  Reset
                </button>
              </div>
            </Card>
          );
        })}
      </div>
    </>
  );
}
