import type { MemoryGateState } from './memory-gate.state.js';
import { type Departure, effective } from './send-gate.store.js';

/**
 * A send's departure check (SendGateStore.depart): `cool` while the bot cools down, `full` while the last
 * `windowMs` saw `max` departures, else `go` (recorded, and kept `keepMs` for SendGateStore.departed).
 */
export function departSend(
  s: MemoryGateState,
  bot: string,
  sendId: string,
  o: { windowMs: number; max: number; keepMs: number },
  now: number,
): Departure {
  const st = effective(s.raw(bot), now);
  if (st.state === 'cooldown') return { kind: 'cool', until: st.until! };
  const d = s.departures.get(bot) ?? new Map<string, number>();
  for (const [id, t] of d) if (t <= now - o.windowMs) d.delete(id);
  s.departures.set(bot, d);
  if (d.size >= o.max) return { kind: 'full', ms: Math.min(...d.values()) + o.windowMs - now + 1 };
  d.set(sendId, now);
  s.left.set(`${bot}|${sendId}`, now + o.keepMs, now);
  return { kind: 'go' };
}
