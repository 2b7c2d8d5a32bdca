import { useState } from 'preact/hooks';
import { Card, Problems } from '../components/bits.js';
import { ApiError } from '../lib/api.js';
import { useConsole } from '../lib/context.js';
import { PlacedProblems, placeProblems } from '../lib/problems.js';
import { knownTiers } from '../lib/tiers.js';
import type { ClientAppView, OneTimeSecret } from '../lib/types.js';

const FIELDS = ['id', 'tier', 'skewSeconds', 'debug'];

/** Creates an app; the server generates its first secret and the page shows it once. */
export function CreateApp({
  onCreated,
}: {
  onCreated: (r: { app: ClientAppView; secret: OneTimeSecret }) => void;
}) {
  const { api, config, notify } = useConsole();
  const tiers = knownTiers(config.policySet.policies);
  const [id, setId] = useState('');
  const [tier, setTier] = useState(tiers[0] ?? 'free');
  const [placed, setPlaced] = useState<PlacedProblems>({ fields: {}, other: [] });
  const [busy, setBusy] = useState(false);

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    try {
      const r = await api.post<{ app: ClientAppView; secret: OneTimeSecret }>('/admin/apps', {
        id: id.trim(),
        tier,
      });
      setPlaced({ fields: {}, other: [] });
      setId('');
      notify(`${r.app.id} created`);
      onCreated(r);
    } catch (err) {
      const list =
        err instanceof ApiError ? (err.problem.problems ?? [err.message]) : [String(err)];
      setPlaced(placeProblems(list, '', FIELDS));
    } finally {
      setBusy(false);
    }
  };
  const fieldError = (f: string) =>
    placed.fields[f] ? (
      <span class="field-error" id={`new-app-${f}-err`}>
        {placed.fields[f]!.join('; ')}
      </span>
    ) : null;

  return (
    <Card title="New app">
      <form class="row wrap" onSubmit={(e) => void submit(e)} aria-label="Create an app">
        <span class="field">
          <label for="new-app-id">App id</label>
          <input
            id="new-app-id"
            value={id}
            required
            placeholder="acme-web"
            aria-invalid={placed.fields.id ? true : undefined}
            aria-describedby={placed.fields.id ? 'new-app-id-err' : undefined}
            onInput={(e) => setId(e.currentTarget.value)}
          />
          {fieldError('id')}
        </span>
        <span class="field">
          <label for="new-app-tier">Tier</label>
          <select id="new-app-tier" value={tier} onChange={(e) => setTier(e.currentTarget.value)}>
            {tiers.map((t) => (
              <option key={t} value={t}>
                {t}
              </option>
            ))}
          </select>
          {fieldError('tier')}
        </span>
        <button type="submit" class="primary" disabled={busy}>
          Create app
        </button>
      </form>
      <Problems items={placed.other} />
    </Card>
  );
}
