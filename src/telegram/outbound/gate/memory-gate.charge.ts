import { aimdRate } from './aimd.js';
import { charged, earliest, nextFitMs } from './gcra.js';
import type { MemoryGateState } from './memory-gate.state.js';
import { type ChargeRequest, type ChargeResult, effective } from './send-gate.store.js';

/** Reserves a send's slot (SendGateStore.charge): the same rules as lua/telegram_send_charge.lua. */
export function chargeSend(s: MemoryGateState, r: ChargeRequest, now: number): ChargeResult {
  const st = effective(s.raw(r.bot), now);
  if (st.state === 'disabled' || st.state === 'revoked') return { kind: 'refused', why: st.state };
  if ((s.unreachable.get(`${r.bot}|${r.chatId}`) ?? 0) > now)
    return { kind: 'refused', why: 'unreachable' };
  if (st.rotating) return { kind: 'wait', ms: 50, why: 'rotating' };
  if (st.state === 'cooldown')
    return { kind: 'wait', ms: Math.ceil(st.until! - now), why: 'cooldown' };
  const cool = s.chatCool.get(`${r.bot}|${r.chatId}`) ?? 0;
  if (cool > now) return { kind: 'wait', ms: Math.ceil(cool - now), why: 'chat_cooldown' };
  const keys = [`${r.bot}|b`, `${r.bot}|m|${r.method}`, `${r.bot}|c|${r.chatId}`];
  const specs = [r.buckets.bot, r.buckets.method, r.buckets.chat];
  const costs = [r.weight, r.weight, 1];
  const a = s.aimd.get(r.bot);
  const rates = specs.map((b, i) =>
    b && i === 0 && r.aimd ? aimdRate(b.perSecond, a, now, r.aimd) : b?.perSecond,
  );
  const slots = specs.map((b, i) =>
    b ? earliest(b, s.tats.get(keys[i]!), costs[i]!, now, rates[i]) : now,
  );
  const slot = Math.max(now, ...slots);
  if (slot - now > (r.maxWaitMs ?? 0) + 1e-9) {
    const i = slots.indexOf(slot);
    const ms = Math.max(1, Math.ceil(slot - now - (r.maxWaitMs ?? 0)));
    const bucket = (['bot', 'method', 'chat'] as const)[i];
    return { kind: 'wait', ms, why: 'bucket', bucket };
  }
  specs.forEach((b, i) => {
    if (b) s.tats.set(keys[i]!, charged(b, s.tats.get(keys[i]!), costs[i]!, slot, rates[i]), now);
  });
  let f = s.flights.get(r.bot);
  if (!f) s.flights.set(r.bot, (f = new Map()));
  f.set(r.sendId, now + r.inflightMs);
  return {
    kind: 'ok',
    gen: st.gen,
    chatNextMs: nextFitMs(r.buckets.chat, s.tats.get(keys[2]!)!, now),
    waitMs: Math.ceil(slot - now),
  };
}
