import { useState } from 'preact/hooks';
import { Shell } from './shell.js';
import { SignIn } from './pages/sign-in.js';
import { forgetToken, storeToken, storedToken } from './lib/session.js';

/** Signed out: the sign-in form. Signed in: the console. */
export function App() {
  const [token, setToken] = useState<string | null>(storedToken());
  const [reason, setReason] = useState<string | undefined>(undefined);
  if (!token)
    return (
      <SignIn
        reason={reason}
        onSignedIn={(t) => {
          storeToken(t);
          setReason(undefined);
          setToken(t);
        }}
      />
    );
  return (
    <Shell
      token={token}
      onSignOut={(why) => {
        forgetToken();
        setReason(why);
        setToken(null);
      }}
    />
  );
}
