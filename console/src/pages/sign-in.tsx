import { useRef, useState } from 'preact/hooks';
import { AdminApi, ApiError } from '../lib/api.js';
import { signInMessage } from '../lib/sign-in.js';
import type { ConfigView } from '../lib/types.js';

interface Props {
  /** Why the user is here again (signed out, token refused later). */
  reason?: string;
  onSignedIn: (token: string) => void;
}

/** Asks for the admin token and checks it with one admin API call before keeping it. */
export function SignIn({ reason, onSignedIn }: Props) {
  const [error, setError] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const input = useRef<HTMLInputElement>(null);

  const submit = async (e: Event) => {
    e.preventDefault();
    const token = input.current?.value.trim() ?? '';
    if (!token) {
      setError('Type the admin token first.');
      return;
    }
    setBusy(true);
    setError(undefined);
    try {
      await new AdminApi(token).get<ConfigView>('/admin/config');
      if (input.current) input.current.value = '';
      onSignedIn(token);
    } catch (err) {
      setError(err instanceof ApiError ? signInMessage(err) : String(err));
      input.current?.focus();
    } finally {
      setBusy(false);
    }
  };

  return (
    <main class="sign-in">
      <form onSubmit={(e) => void submit(e)} aria-describedby="sign-in-note">
        <h1>Rampart console</h1>
        {reason ? <p class="notice">{reason}</p> : null}
        <label for="token">Admin token</label>
        <input
          id="token"
          ref={input}
          type="password"
          autocomplete="off"
          spellcheck={false}
          autoFocus
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? 'sign-in-error' : undefined}
        />
        {error ? (
          <p id="sign-in-error" class="error" role="alert">
            {error}
          </p>
        ) : null}
        <button type="submit" class="primary" disabled={busy}>
          {busy ? 'Checking…' : 'Sign in'}
        </button>
        <p id="sign-in-note" class="muted">
          The token stays in this tab only (session storage) and goes to the admin API as a bearer
          token. Every change you make is validated, audited and applied on every instance.
        </p>
      </form>
    </main>
  );
}
