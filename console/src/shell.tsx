import { useCallback, useEffect, useMemo, useState } from 'preact/hooks';
import { AdminApi, ApiError } from './lib/api.js';
import { ConsoleContext, ConsoleEnv, NoticeKind } from './lib/context.js';
import { usePoll } from './lib/hooks.js';
import { NAV, navGroups, pageOf } from './lib/nav.js';
import type { ConfigView } from './lib/types.js';
import { PAGES } from './pages/index.js';

interface Props {
  token: string;
  onSignOut: (reason?: string) => void;
}

/** The signed-in console: header, navigation (from lib/nav.ts) and the current page. */
export function Shell({ token, onSignOut }: Props) {
  const api = useMemo(
    () =>
      new AdminApi(token, (e: ApiError) =>
        onSignOut(
          e.problem.error === 'admin_unauthorized'
            ? 'The service no longer accepts that token (revoked or rotated). Sign in again.'
            : undefined,
        ),
      ),
    [token],
  );
  const config = usePoll(() => api.get<ConfigView>('/admin/config'), 10_000, [api]);
  const [page, setPage] = useState(pageOf(location.hash));
  const [notice, setNotice] = useState<{ text: string; kind: NoticeKind } | undefined>(undefined);

  useEffect(() => {
    const onHash = () => setPage(pageOf(location.hash));
    window.addEventListener('hashchange', onHash);
    // A hash change between the first render and this effect fired no listener: read it now.
    onHash();
    return () => window.removeEventListener('hashchange', onHash);
  }, []);
  useEffect(() => {
    document.title = `${NAV.find((e) => e.id === page)?.label ?? 'Console'} · Rampart`;
    document.getElementById('main')?.focus({ preventScroll: true });
  }, [page]);

  const notify = useCallback(
    (text: string, kind: NoticeKind = 'ok') => setNotice({ text, kind }),
    [],
  );
  const Page = PAGES[page];
  const c = config.data;
  const env: ConsoleEnv | null = c ? { api, config: c, reloadConfig: config.reload, notify } : null;

  return (
    <div class="shell">
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <span class="brand">Rampart</span>
        {c ? (
          <span class="where" data-testid="where">
            {c.config.service ?? 'rampart'} · {c.config.env ?? '?'} · policy v{c.policySet.version}{' '}
            · {c.store} store
          </span>
        ) : null}
        <button type="button" class="sign-out" onClick={() => onSignOut('Signed out.')}>
          Sign out
        </button>
      </header>
      <nav class="side" aria-label="Console">
        {navGroups().map((g) => (
          <div class="nav-group" key={g.group}>
            <h2>{g.group}</h2>
            <ul>
              {g.entries.map((e) => (
                <li key={e.id}>
                  {e.soon ? (
                    <span class="nav-soon" aria-disabled="true" title={e.soon}>
                      {e.label} <small>soon</small>
                    </span>
                  ) : (
                    <a href={`#/${e.id}`} aria-current={e.id === page ? 'page' : undefined}>
                      {e.label}
                    </a>
                  )}
                </li>
              ))}
            </ul>
          </div>
        ))}
      </nav>
      <main id="main" tabIndex={-1}>
        <div class={`notice-line ${notice?.kind ?? ''}`} role="status" aria-live="polite">
          {notice ? (
            <>
              <span>{notice.text}</span>
              <button type="button" class="link" onClick={() => setNotice(undefined)}>
                dismiss
              </button>
            </>
          ) : null}
        </div>
        {config.error && !c ? (
          <p class="error" role="alert">
            Could not load the configuration: {config.error.message}
          </p>
        ) : null}
        {env && Page ? (
          <ConsoleContext.Provider value={env}>
            <Page />
          </ConsoleContext.Provider>
        ) : !config.error ? (
          <p class="muted">Loading…</p>
        ) : null}
      </main>
    </div>
  );
}
