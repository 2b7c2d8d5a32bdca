import { useEffect, useRef, useState } from 'preact/hooks';
import type { AdminApi } from './api.js';
import { mergePoints, nextPollMs } from './series.js';
import type { SeriesPoint, SeriesView } from './types.js';

export interface SeriesState {
  points: SeriesPoint[];
  /** Server time of the last answer (epoch ms). */
  now: number;
  stepMs: number;
  error?: Error;
}

/**
 * The 15-minute counter series: the whole window once, then only the points
 * newer than the last one held (`since`), polled at the server's step.
 */
export function useSeries(api: AdminApi): SeriesState {
  const [state, setState] = useState<SeriesState>({ points: [], now: Date.now(), stepMs: 5000 });
  const held = useRef<SeriesPoint[]>([]);
  useEffect(() => {
    let alive = true;
    let timer: number | undefined;
    const tick = async () => {
      try {
        const last = held.current[held.current.length - 1]?.at;
        const v = await api.get<SeriesView>(
          `/admin/status/series${last === undefined ? '' : `?since=${last}`}`,
        );
        if (!alive) return;
        held.current = mergePoints(held.current, v.points, v.windowMs, v.now);
        setState({ points: held.current, now: v.now, stepMs: v.stepMs });
        const newest = held.current[held.current.length - 1]?.at;
        timer = window.setTimeout(() => void tick(), nextPollMs(newest, v.now, v.stepMs));
      } catch (e) {
        if (!alive) return;
        setState((s) => ({ ...s, error: e as Error }));
        timer = window.setTimeout(() => void tick(), 5000);
      }
    };
    void tick();
    return () => {
      alive = false;
      window.clearTimeout(timer);
    };
  }, [api]);
  return state;
}
