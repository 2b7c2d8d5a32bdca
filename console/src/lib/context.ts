import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { AdminApi } from './api.js';
import type { ConfigView } from './types.js';

export type NoticeKind = 'ok' | 'error';

/** What every page gets from the signed-in shell. */
export interface ConsoleEnv {
  api: AdminApi;
  /** `/admin/config` as last loaded. */
  config: ConfigView;
  /** Loads `/admin/config` again (after a change). */
  reloadConfig: () => void;
  /** A short message in the live region at the top of the page. */
  notify: (message: string, kind?: NoticeKind) => void;
}

export const ConsoleContext = createContext<ConsoleEnv | null>(null);

export function useConsole(): ConsoleEnv {
  const env = useContext(ConsoleContext);
  if (!env) throw new Error('useConsole outside the signed-in console');
  return env;
}
