import type { BotStatus } from '../outbound.types.js';
import type { RedisGateParts } from './redis-gate.parts.js';
import { type StatusPatch, effective } from './send-gate.store.js';

/** The bot's status as the gate holds it (SendGateStore.status): its hash `s`, a lapsed cooldown ended. */
export async function readStatus(p: RedisGateParts, bot: string): Promise<BotStatus> {
  const h = await p.redis.run('telegram.status', (c) => c.hgetall(p.key(bot, 's')));
  const s: BotStatus = {
    state: (h.state as BotStatus['state'] | undefined) ?? 'active',
    until: h.until ? Number(h.until) : undefined,
    reason: h.reason || undefined,
    gen: Number(h.gen ?? 0),
    rotating: h.rot === '1',
  };
  return effective(s, p.clock.now());
}

/** Changes the bot's status (SendGateStore.setStatus) in one transaction; the status after. */
export async function writeStatus(
  p: RedisGateParts,
  bot: string,
  patch: StatusPatch,
): Promise<BotStatus> {
  const k = p.key(bot, 's');
  await p.redis.run('telegram.status', async (c) => {
    const m = c.multi();
    if (patch.state !== undefined) {
      m.hset(k, 'state', patch.state, 'reason', patch.reason ?? '');
      if (patch.state === 'cooldown') m.hset(k, 'until', patch.until ?? 0);
      else m.hdel(k, 'until');
    }
    if (patch.rotating !== undefined) m.hset(k, 'rot', patch.rotating ? '1' : '0');
    if (patch.bumpGen) m.hincrby(k, 'gen', 1);
    await m.exec();
  });
  return readStatus(p, bot);
}
