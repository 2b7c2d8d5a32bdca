import { useState } from 'preact/hooks';
import type { OneTimeSecret } from '../lib/types.js';

interface Props {
  appId: string;
  secret: OneTimeSecret;
  onDone: () => void;
}

/**
 * A new app secret, shown this once: the service never shows it again, and
 * the console keeps it only in this component's props (never in storage);
 * "Done" drops it from the page.
 */
export function SecretOnce({ appId, secret, onDone }: Props) {
  const [copied, setCopied] = useState<'no' | 'yes' | 'failed'>('no');
  const copy = () => {
    navigator.clipboard.writeText(secret.value).then(
      () => setCopied('yes'),
      () => setCopied('failed'),
    );
  };
  return (
    <section class="secret-once" role="alertdialog" aria-labelledby="secret-title">
      <h3 id="secret-title">
        New secret for {appId} (key {secret.id})
      </h3>
      <p>
        <strong>Shown once.</strong> Copy it now and store it where the app reads its secret: the
        service will not show it again.
      </p>
      <code class="secret-value" data-testid="one-time-secret">
        {secret.value}
      </code>
      <div class="row">
        <button type="button" class="primary" onClick={copy} autoFocus>
          Copy secret
        </button>
        <button type="button" onClick={onDone}>
          Done, I stored it
        </button>
        <span role="status">
          {copied === 'yes'
            ? 'Copied.'
            : copied === 'failed'
              ? 'Copy failed: select the text.'
              : ''}
        </span>
      </div>
    </section>
  );
}
