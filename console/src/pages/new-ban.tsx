import { useState } from 'preact/hooks';
import { Card, Problems } from '../components/bits.js';
import { ApiError } from '../lib/api.js';
import { EMPTY_BAN_FORM, banBody, type BanForm, type BanView } from '../lib/bans.js';
import { useConsole } from '../lib/context.js';

const DIMENSIONS: BanForm['dimension'][] = ['user', 'chat', 'ip', 'app'];

/** Sets a ban: the id is typed in clear and sent once; the list shows only its hash. */
export function NewBan({ onSet }: { onSet: () => void }) {
  const { api, notify } = useConsole();
  const [f, setF] = useState<BanForm>(EMPTY_BAN_FORM);
  const [problems, setProblems] = useState<string[]>([]);
  const [busy, setBusy] = useState(false);
  const set = (patch: Partial<BanForm>) => setF({ ...f, ...patch });

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    try {
      const ban = await api.post<BanView>('/admin/bans', banBody(f));
      setProblems([]);
      setF(EMPTY_BAN_FORM);
      notify(`${ban.dimension} banned until ${ban.until}`);
      onSet();
    } catch (err) {
      setProblems(
        err instanceof ApiError ? (err.problem.problems ?? [err.message]) : [String(err)],
      );
    } finally {
      setBusy(false);
    }
  };

  return (
    <Card title="New ban">
      <form class="row wrap" onSubmit={(e) => void submit(e)} aria-label="Set a ban">
        <span class="field">
          <label for="ban-dimension">Dimension</label>
          <select
            id="ban-dimension"
            value={f.dimension}
            onChange={(e) => set({ dimension: e.currentTarget.value as BanForm['dimension'] })}
          >
            {DIMENSIONS.map((d) => (
              <option key={d} value={d}>
                {d}
              </option>
            ))}
          </select>
        </span>
        <span class="field">
          <label for="ban-subject">Id (user, chat, IP or app)</label>
          <input
            id="ban-subject"
            value={f.subject}
            required
            autocomplete="off"
            onInput={(e) => set({ subject: e.currentTarget.value })}
          />
        </span>
        {f.dimension === 'app' ? null : (
          <>
            <span class="field">
              <label for="ban-app">App (a bot for Telegram)</label>
              <input
                id="ban-app"
                value={f.app}
                disabled={f.global}
                onInput={(e) => set({ app: e.currentTarget.value })}
              />
            </span>
            <span class="field">
              <label for="ban-global">
                <input
                  id="ban-global"
                  type="checkbox"
                  checked={f.global}
                  onChange={(e) => set({ global: e.currentTarget.checked })}
                />{' '}
                Every app
              </label>
            </span>
          </>
        )}
        <span class="field">
          <label for="ban-hours">Hours</label>
          <input
            id="ban-hours"
            type="number"
            min="0.01"
            step="any"
            value={f.hours}
            onInput={(e) => set({ hours: e.currentTarget.value })}
          />
        </span>
        <span class="field">
          <label for="ban-reason">Reason (shown to the client)</label>
          <input
            id="ban-reason"
            value={f.reason}
            maxLength={200}
            onInput={(e) => set({ reason: e.currentTarget.value })}
          />
        </span>
        <button type="submit" class="primary danger" disabled={busy}>
          Ban
        </button>
      </form>
      <Problems items={problems} />
    </Card>
  );
}
