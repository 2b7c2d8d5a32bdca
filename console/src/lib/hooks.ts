import { useCallback, useEffect, useRef, useState } from 'preact/hooks';

export interface Loaded<T> {
  data: T | undefined;
  error: Error | undefined;
  /** Loads again now (after a change). */
  reload: () => void;
}

/**
 * Loads `load()` now and then every `intervalMs` (0 = once), skipping ticks
 * while the tab is hidden; keeps the last good data when a poll fails.
 */
export function usePoll<T>(
  load: () => Promise<T>,
  intervalMs: number,
  deps: unknown[] = [],
): Loaded<T> {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<Error | undefined>(undefined);
  const latest = useRef(load);
  latest.current = load;
  const alive = useRef(true);
  // Only the newest run's answer counts: an older, slower one (say, before a filter changed) that comes
  // back later must not overwrite it.
  const seq = useRef(0);
  const run = useCallback(() => {
    const mine = ++seq.current;
    latest.current().then(
      (v) => {
        if (!alive.current || mine !== seq.current) return;
        setData(v);
        setError(undefined);
      },
      (e: unknown) => {
        if (alive.current && mine === seq.current) setError(e as Error);
      },
    );
  }, []);
  useEffect(() => {
    alive.current = true;
    run();
    const timer =
      intervalMs > 0
        ? window.setInterval(() => {
            if (!document.hidden) run();
          }, intervalMs)
        : undefined;
    return () => {
      alive.current = false;
      window.clearInterval(timer);
    };
  }, [intervalMs, run, ...deps]);
  return { data, error, reload: run };
}

/** Epoch ms, refreshed every `ms` (for "in 14 min" labels). */
export function useNow(ms = 1000): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const t = window.setInterval(() => setNow(Date.now()), ms);
    return () => window.clearInterval(t);
  }, [ms]);
  return now;
}
