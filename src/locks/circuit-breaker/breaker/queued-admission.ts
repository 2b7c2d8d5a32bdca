import type { Admission, QueueRefusal } from '../circuit-breaker.types.js';
import type { QueuePlace } from './fair-queue.js';
import type { Holder, SlotDesk } from './slot-desk.js';

type Ticket = Extract<Admission, { admit: true }>;

/** What a call waiting for a slot needs of its BackendBreaker. */
export interface WaitingRoomDeps {
  slots: SlotDesk;
  /** The recovery gate's refusal now (the circuit opened while the call waited), if any. */
  refusing(): Admission | undefined;
  /** Counts a refusal (the call ledger). */
  refused(): void;
  /** Refuses as `busy` (a probe's ticket is handed back), with the queue's answer when there is one. */
  busy(a: Ticket, queue?: QueueRefusal): Admission;
}

/**
 * The admission of a call that found the limit reached (ticket `a` from the gate): within its fair share it
 * waits in its app's lane of the SlotQueue (round robin between apps) for a freed slot; refused past the queue's
 * bounds or its `maxWaitMs`, with where it stood. Probes never wait. `onQueued` hears its place once queued.
 */
export async function admitQueued(
  d: WaitingRoomDeps,
  a: Ticket,
  h: Holder,
  signal?: AbortSignal,
  onQueued?: (place: QueuePlace) => void,
): Promise<Admission> {
  if (a.probe || !d.slots.fair(h)) return d.busy(a);
  const waited = await d.slots.wait(h, signal, onQueued);
  if (!waited.got) {
    const { why, place } = waited;
    if (why === 'full' || why === 'app_full')
      return d.busy(a, { why, length: place!.length, position: place!.position });
    if (why === 'timeout') return d.busy(a, { why, length: d.slots.waiting });
    return d.busy(a);
  }
  const refusal = d.refusing();
  if (!refusal && d.slots.free(h, true)) return { ...a, waited: true };
  // Opened while it waited, or over its share now (another app started waiting): the slot goes on.
  d.slots.declined();
  if (!refusal) return d.busy(a);
  d.refused();
  return refusal;
}
