import { useState } from 'preact/hooks';

const LATER: Record<string, number> = { '1h': 3_600_000, '24h': 86_400_000, '7d': 7 * 86_400_000 };

/** Retires one secret now (its material is deleted) or later (it works until then). */
export function RetireSecret({
  app,
  secret,
  onRetire,
}: {
  app: string;
  secret: string;
  onRetire: (body?: { notAfter: string }) => void;
}) {
  const [when, setWhen] = useState('now');
  const [asking, setAsking] = useState(false);
  const id = `retire-${app}-${secret}`;
  if (!asking)
    return (
      <button type="button" class="link" onClick={() => setAsking(true)}>
        Retire…
      </button>
    );
  return (
    <span class="confirm" role="group" aria-label={`Retire secret ${secret} of ${app}`}>
      <label for={id}>Retire {secret}</label>
      <select id={id} value={when} onChange={(e) => setWhen(e.currentTarget.value)}>
        <option value="now">now</option>
        <option value="1h">in 1 hour</option>
        <option value="24h">in 24 hours</option>
        <option value="7d">in 7 days</option>
      </select>
      <button
        type="button"
        class="danger"
        onClick={() => {
          setAsking(false);
          onRetire(
            when === 'now'
              ? undefined
              : { notAfter: new Date(Date.now() + LATER[when]!).toISOString() },
          );
        }}
      >
        Retire
      </button>
      <button type="button" onClick={() => setAsking(false)}>
        Cancel
      </button>
    </span>
  );
}
