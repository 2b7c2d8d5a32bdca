import type { SendBucket } from '../outbound.settings.js';
import type { RedisGateParts } from './redis-gate.parts.js';
import type { ChargeRequest, ChargeResult } from './send-gate.store.js';

function gcraArgs(b: SendBucket | undefined): [number, number] {
  if (!b) return [0, 0];
  const t = 1e6 / b.perSecond;
  return [t, t * b.burst];
}

/** Reserves a send's slot (SendGateStore.charge): one call of lua/telegram_send_charge.lua. */
export async function chargeSend(p: RedisGateParts, r: ChargeRequest): Promise<ChargeResult> {
  const out = await p.redis.script<[string, string | number, string | number, (string | number)?]>(
    'telegram_send_charge',
    [
      p.key(r.bot, 's'),
      p.key(r.bot, `cc:${p.ids.pseudonym(r.chatId)}`),
      p.key(r.bot, `u:${p.ids.pseudonym(r.chatId)}`),
      p.key(r.bot, 'b'),
      p.key(r.bot, `m:${r.method}`),
      p.key(r.bot, `c:${p.ids.pseudonym(r.chatId)}`),
      p.key(r.bot, 'f'),
    ],
    [
      ...gcraArgs(r.buckets.bot),
      ...gcraArgs(r.buckets.method),
      ...gcraArgs(r.buckets.chat),
      r.weight,
      r.sendId,
      r.inflightMs,
      r.maxWaitMs ?? 0,
      r.aimd?.recoverPerSecond ?? 0,
    ],
  );
  if (out[0] === 'ok')
    return {
      kind: 'ok',
      gen: Number(out[1]),
      chatNextMs: Number(out[2]),
      waitMs: Number(out[3] ?? 0),
    };
  if (out[0] === 'wait') {
    const bucket = out[3] as 'bot' | undefined;
    return { kind: 'wait', ms: Number(out[1]), why: out[2] as 'cooldown', bucket };
  }
  return { kind: 'refused', why: out[1] as 'revoked' };
}
