import { useState } from 'preact/hooks';
import { Problems } from '../components/bits.js';
import { ExpiryPicker } from '../components/expiry-picker.js';
import { ApiError } from '../lib/api.js';
import { useConsole } from '../lib/context.js';
import { expiryInstant } from '../lib/expiry.js';
import { fmtTime } from '../lib/format.js';
import type { ChangeAnswer, LockMode, LockSlice } from '../lib/types.js';

const MODES: readonly LockMode[] = ['enforce', 'shadow', 'off'];

interface Props {
  policy: string;
  lock: string;
  slice: LockSlice | undefined;
  /** `/admin/policies/<policy>/locks/<lock>` */
  path: string;
  onClose: () => void;
}

/** Sets one lock's mode on one policy, permanently or until a time; ends a running override. */
export function ModeEditor({ policy, lock, slice, path, onClose }: Props) {
  const { api, reloadConfig, notify } = useConsole();
  const current = slice?.override?.mode ?? slice?.mode ?? 'off';
  const [mode, setMode] = useState<LockMode>(current === 'shadow' ? 'enforce' : 'shadow');
  const [choice, setChoice] = useState('15m');
  const [at, setAt] = useState('');
  const [problems, setProblems] = useState<string[]>([]);
  const [busy, setBusy] = useState(false);
  const id = `mode-${policy}-${lock}`;

  const run = async (call: () => Promise<ChangeAnswer>, done: (a: ChangeAnswer) => string) => {
    setBusy(true);
    setProblems([]);
    try {
      const answer = await call();
      notify(done(answer));
      reloadConfig();
      onClose();
    } catch (e) {
      setProblems(e instanceof ApiError ? (e.problem.problems ?? [e.message]) : [String(e)]);
    } finally {
      setBusy(false);
    }
  };

  const apply = (e: Event) => {
    e.preventDefault();
    let until: string | undefined;
    try {
      until = expiryInstant(choice, Date.now(), at);
    } catch (err) {
      setProblems([(err as Error).message]);
      return;
    }
    void run(
      () => api.patch<ChangeAnswer>(path, until ? { mode, until } : { mode }),
      (a) =>
        `${policy}.${lock} → ${mode}${until ? ` until ${fmtTime(until)}` : ''} (policy v${a.version})`,
    );
  };

  return (
    <form class="editor" onSubmit={apply} aria-label={`Change ${lock} on ${policy}`}>
      <fieldset>
        <legend>
          {lock} on <strong>{policy}</strong>: now {current}
          {slice?.override?.until
            ? ` until ${fmtTime(slice.override.until)}, then ${slice.mode}`
            : ''}
        </legend>
        <div class="row">
          {MODES.map((m) => (
            <label key={m} class="radio">
              <input
                type="radio"
                name={`${id}-mode`}
                value={m}
                checked={mode === m}
                onChange={() => setMode(m)}
              />
              {m}
            </label>
          ))}
          <ExpiryPicker id={id} choice={choice} at={at} onChoice={setChoice} onAt={setAt} />
        </div>
        <Problems items={problems} />
        <div class="row">
          <button type="submit" class="primary" disabled={busy}>
            Apply
          </button>
          {slice?.override ? (
            <button
              type="button"
              disabled={busy}
              onClick={() =>
                void run(
                  () => api.del<ChangeAnswer>(`${path}/override`),
                  (a) => `${policy}.${lock}: override ended (policy v${a.version})`,
                )
              }
            >
              End override now
            </button>
          ) : null}
          <button type="button" onClick={onClose}>
            Cancel
          </button>
        </div>
      </fieldset>
    </form>
  );
}
