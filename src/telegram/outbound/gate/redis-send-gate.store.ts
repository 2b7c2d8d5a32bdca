import type { Clock } from '../../../common/clock.js';
import type { RedisService } from '../../../redis/redis.service.js';
import type { BotStatus } from '../outbound.types.js';
import { IdCipher } from '../id-cipher.js';
import type { SendBucket } from '../outbound.settings.js';
import type { AimdSettings } from './aimd.js';
import {
  ANSWER_WINDOW_MS,
  type AnswerCounts,
  type SendAnswer,
  answerMinutes,
  minuteOf,
} from './answer-tally.js';
import {
  ChargeRequest,
  ChargeResult,
  Departure,
  SendGateStore,
  StatusPatch,
  effective,
} from './send-gate.store.js';

/** The calls a store needs (RedisService, or the sender's own connection OutboundRedis). */
type Runner = Pick<RedisService, 'script' | 'run'>;

function gcraArgs(b: SendBucket | undefined): [number, number] {
  if (!b) return [0, 0];
  const t = 1e6 / b.perSecond;
  return [t, t * b.burst];
}

/**
 * The send gate in Redis: every key of one bot under the bot's hash tag
 * `{<env>:<service>:bot:<id>}`, so the charge (lua/telegram_send_charge.lua)
 * and a cooldown (lua/telegram_cooldown.lua) are one call each, in one slot.
 */
export class RedisSendGateStore implements SendGateStore {
  constructor(
    private readonly redis: Runner,
    private readonly base: string,
    private readonly clock: Clock,
    /** Chat ids in keys as keyed pseudonyms (docs/security.md#ids-in-redis). */
    private readonly ids: IdCipher = IdCipher.from(undefined, undefined),
  ) {}

  private key(bot: string, part: string): string {
    return `tgo:{${this.base}:bot:${bot}}:${part}`;
  }

  async charge(r: ChargeRequest): Promise<ChargeResult> {
    const out = await this.redis.script<
      [string, string | number, string | number, (string | number)?]
    >(
      'telegram_send_charge',
      [
        this.key(r.bot, 's'),
        this.key(r.bot, `cc:${this.ids.pseudonym(r.chatId)}`),
        this.key(r.bot, `u:${this.ids.pseudonym(r.chatId)}`),
        this.key(r.bot, 'b'),
        this.key(r.bot, `m:${r.method}`),
        this.key(r.bot, `c:${this.ids.pseudonym(r.chatId)}`),
        this.key(r.bot, 'f'),
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

  async depart(
    bot: string,
    sendId: string,
    windowMs: number,
    max: number,
    keepMs: number,
  ): Promise<Departure> {
    const out = await this.redis.script<[string, number?]>(
      'telegram_send_depart',
      [this.key(bot, 's'), this.key(bot, 'd'), this.key(bot, 'k')],
      [windowMs, max, sendId, keepMs],
    );
    if (out[0] === 'cool') return { kind: 'cool', until: Number(out[1]) };
    if (out[0] === 'full') return { kind: 'full', ms: Number(out[1]) };
    return { kind: 'go' };
  }

  /** A record past its keep, not trimmed yet (at the bot's next departure), answers true: the safe side. */
  async departed(bots: string[], sendId: string): Promise<boolean> {
    for (const b of bots) {
      const at = await this.redis.run('telegram.departed', (c) =>
        c.zscore(this.key(b, 'k'), sendId),
      );
      if (at !== null) return true;
    }
    return false;
  }

  async release(bot: string, sendId: string, answer?: SendAnswer): Promise<void> {
    // One round trip: the in-flight mark goes; an answer is counted in its minute (kept for the window) and
    // moves the send's departure record to now (lua/telegram_send_release.lua).
    const minute = this.key(bot, `a:${minuteOf(this.clock.now())}`);
    await this.redis.script(
      'telegram_send_release',
      [this.key(bot, 'f'), this.key(bot, 'd'), minute],
      [sendId, answer ?? '', ANSWER_WINDOW_MS + 120_000],
    );
  }

  async answers(bot: string): Promise<AnswerCounts> {
    const rows = await this.redis.run('telegram.answers', async (c) => {
      const m = c.multi();
      for (const minute of answerMinutes(this.clock.now()))
        m.hmget(this.key(bot, `a:${minute}`), 'n', 'r');
      return (await m.exec()) ?? [];
    });
    const out = { answers: 0, rateLimited: 0 };
    for (const [, v] of rows) {
      const [n, r] = (v as (string | null)[] | null) ?? [];
      out.answers += Number(n ?? 0);
      out.rateLimited += Number(r ?? 0);
    }
    return out;
  }

  async cooldown(
    bot: string,
    chatId: string | undefined,
    ms: number,
    aimd?: AimdSettings & { cap: number },
  ): Promise<number> {
    const key =
      chatId === undefined ? this.key(bot, 's') : this.key(bot, `cc:${this.ids.pseudonym(chatId)}`);
    const mode = chatId === undefined ? 'bot' : 'chat';
    const a = aimd ? [aimd.cap, aimd.backoff, aimd.recoverPerSecond] : [0, 0, 0];
    return Number(
      await this.redis.script<number>('telegram_cooldown', [key], [mode, Math.ceil(ms), ...a]),
    );
  }

  async setStatus(bot: string, p: StatusPatch): Promise<BotStatus> {
    const k = this.key(bot, 's');
    await this.redis.run('telegram.status', async (c) => {
      const m = c.multi();
      if (p.state !== undefined) {
        m.hset(k, 'state', p.state, 'reason', p.reason ?? '');
        if (p.state === 'cooldown') m.hset(k, 'until', p.until ?? 0);
        else m.hdel(k, 'until');
      }
      if (p.rotating !== undefined) m.hset(k, 'rot', p.rotating ? '1' : '0');
      if (p.bumpGen) m.hincrby(k, 'gen', 1);
      await m.exec();
    });
    return this.status(bot);
  }

  async status(bot: string): Promise<BotStatus> {
    const h = await this.redis.run('telegram.status', (c) => c.hgetall(this.key(bot, 's')));
    const s: BotStatus = {
      state: (h.state as BotStatus['state'] | undefined) ?? 'active',
      until: h.until ? Number(h.until) : undefined,
      reason: h.reason || undefined,
      gen: Number(h.gen ?? 0),
      rotating: h.rot === '1',
    };
    return effective(s, this.clock.now());
  }

  async markUnreachable(bot: string, chatId: string, ttlMs: number): Promise<void> {
    await this.redis.run('telegram.unreachable', (c) =>
      c.set(this.key(bot, `u:${this.ids.pseudonym(chatId)}`), '1', 'PX', ttlMs),
    );
  }

  async clearUnreachable(bot: string, chatId: string): Promise<void> {
    await this.redis.run('telegram.unreachable', (c) =>
      c.del(this.key(bot, `u:${this.ids.pseudonym(chatId)}`)),
    );
  }

  async inflight(bot: string): Promise<number> {
    const now = this.clock.now();
    return this.redis.run('telegram.inflight', (c) => c.zcount(this.key(bot, 'f'), now, '+inf'));
  }
}
