import type { Socket } from 'node:net';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { StopDrained } from '../inference-backend.js';
import { UpstreamStop } from './upstream-stop.js';

const turn = (): Promise<void> => new Promise((r) => setImmediate(r));

/** A stop watching an answer (a PassThrough body, a socket that records its half-close), its call aborted. */
async function stopped(): Promise<{ stop: UpstreamStop; reports: StopDrained[]; ends: number }> {
  const call = new AbortController();
  const reports: StopDrained[] = [];
  const stop = new UpstreamStop(call.signal, { ms: 1_000, bytes: 1 << 20 }, (d) => reports.push(d));
  const socket = { ends: 0, end: () => void socket.ends++, destroy: () => undefined };
  stop.watch(new PassThrough(), socket as unknown as Socket);
  call.abort();
  await turn(); // the stop runs at the end of the abort's turn: the half-close
  return { stop, reports, ends: socket.ends };
}

describe(UpstreamStop.name, () => {
  afterEach(() => vi.useRealTimers());

  it("should not cut the drain before the turn's I/O is read when its time is up on a starved event loop", async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const { stop, reports, ends } = await stopped();
    expect(ends).toBe(1);
    // The drain's second is over (the loop was starved): the timer runs first in its turn, before that turn's I/O …
    vi.advanceTimersByTime(1_000);
    expect(stop.signal.aborted).toBe(false);
    // … which brings the upstream's last chunks and its end: read whole, so the drain is not cut.
    stop.ended();
    await turn();
    expect(stop.signal.aborted).toBe(false);
    stop.dispose();
    expect(reports).toEqual(['drained']);
  });

  it('should cut the drain at its bound when nothing more came by the end of that turn', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const { stop, reports } = await stopped();
    vi.advanceTimersByTime(1_000);
    await turn();
    expect(stop.signal.aborted).toBe(true);
    stop.dispose();
    expect(reports).toEqual(['cut']);
  });
});
