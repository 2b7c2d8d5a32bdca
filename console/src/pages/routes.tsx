import { useState } from 'preact/hooks';
import { Card, ModeBadge, RouteList } from '../components/bits.js';
import { seg } from '../lib/api.js';
import { useConsole } from '../lib/context.js';
import { fmtRelative, fmtTime } from '../lib/format.js';
import { useNow, usePoll } from '../lib/hooks.js';
import type { LockSlice, StatusView } from '../lib/types.js';
import { ModeEditor } from './mode-editor.js';

/** Each policy × each lock: the mode in force, changeable in place (optionally for a while). */
export function Routes() {
  const { api, config } = useConsole();
  const status = usePoll(() => api.get<StatusView>('/admin/status'), 30_000, [api]);
  const now = useNow(5000);
  const [editing, setEditing] = useState<{ policy: string; lock: string } | undefined>(undefined);
  const { policies, effective } = config.policySet;
  const locks = config.installedLocks;
  const routesOf = (p: string) => status.data?.byPolicy.find((x) => x.policy === p)?.routes ?? [];

  return (
    <>
      <h1>Routes × locks</h1>
      <p class="muted">
        The mode each lock runs in on each route policy. <strong>shadow</strong> decides and counts
        but lets every request through. A change with an end time reverts by itself.
      </p>
      <Card title={`Policy set v${config.policySet.version}`}>
        <div class="table-wrap">
          <table class="matrix">
            <thead>
              <tr>
                <th scope="col">Policy and routes</th>
                {locks.map((l) => (
                  <th scope="col" key={l}>
                    {l}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {Object.entries(policies).map(([name, policy]) => [
                <tr key={name}>
                  <th scope="row">
                    <span class="policy-name">{name}</span>
                    <RouteList routes={routesOf(name)} fallback={policy.description} />
                  </th>
                  {locks.map((lock) => {
                    const slice = policy.locks[lock] as LockSlice | undefined;
                    const mode = effective[name]?.[lock] ?? slice?.mode ?? 'off';
                    const o = slice?.override;
                    const open = editing?.policy === name && editing.lock === lock;
                    return (
                      <td key={lock}>
                        <button
                          type="button"
                          class="cell"
                          aria-expanded={open}
                          aria-label={`${name} ${lock}: ${mode}${o?.until ? `, until ${fmtTime(o.until)}` : ''}. Change`}
                          data-testid={`cell-${name}-${lock}`}
                          onClick={() => setEditing(open ? undefined : { policy: name, lock })}
                        >
                          <ModeBadge mode={mode} />
                          {o && (o.until === undefined || o.until > now) ? (
                            <small class="until">
                              {o.until
                                ? `${fmtRelative(o.until, now)} → ${slice?.mode}`
                                : 'override'}
                            </small>
                          ) : null}
                        </button>
                      </td>
                    );
                  })}
                </tr>,
                editing?.policy === name ? (
                  <tr key={`${name}-edit`} class="edit-row">
                    <td colSpan={locks.length + 1}>
                      <ModeEditor
                        policy={name}
                        lock={editing.lock}
                        slice={policy.locks[editing.lock] as LockSlice | undefined}
                        path={`/admin/policies/${seg(name)}/locks/${seg(editing.lock)}`}
                        onClose={() => setEditing(undefined)}
                      />
                    </td>
                  </tr>
                ) : null,
              ])}
            </tbody>
          </table>
        </div>
      </Card>
    </>
  );
}
