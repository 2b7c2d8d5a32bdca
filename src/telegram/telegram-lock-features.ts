import type {
  RateLimitFeature,
  SubjectContext,
} from '../locks/rate-limit/extensions/rate-limit-extensions.js';
import { requestState } from '../http/http-context.js';
import type { SignatureFeature } from '../locks/signature/secret-token/secret-tokens.js';
import type { TelegramBots } from './telegram-bots.js';
import { groupFactor } from './group-scale.js';
import type { GroupSizes } from './group-sizes.js';

/** The header Telegram sends the webhook's secret_token in. */
export const SECRET_TOKEN_HEADER = 'x-telegram-bot-api-secret-token';

/**
 * Lock 1: the `telegram` secret-token source. A request for an unknown bot or
 * with a wrong path secret has no accepted value: refused like a wrong header.
 */
export function telegramSignatureFeature(bots: TelegramBots): SignatureFeature {
  return {
    secretTokens: {
      telegram: {
        header: SECRET_TOKEN_HEADER,
        secrets: (ctx) => {
          const bot = bots.bot(ctx.req);
          return bot?.secretTokens
            ? bot.secretTokens.filter((s): s is string => s !== undefined)
            : undefined;
        },
      },
    },
  };
}

/**
 * How long an update id stays claimed (dedup): Telegram keeps an undelivered
 * update for at most 24 h and redelivers it only within that time, so a day
 * covers every redelivery (and is the longest claim the rate limiter takes).
 */
export const UPDATE_CLAIM_TTL_MS = 24 * 60 * 60 * 1000;

/** The claim name of an update (see `claims.update`); released when Telegram must redeliver. */
export const UPDATE_CLAIM = 'update';

/** The claim id of an update: per bot, since update ids are per bot. */
export function updateClaimId(botId: string, updateId: number): string {
  return `${botId}:${updateId}`;
}

/**
 * Lock 2: where the limits find their subjects in an update (user, chat,
 * command, bot), what a command costs (`cost: telegram`), the attributes
 * rules test (`chatType`, `command`, `kind`, `role`, `verified`) and the
 * `update` claim (update_id per bot). Ids are personal: they enter keys only
 * as keyed hashes. A request that failed verification (lock 1 deferred its
 * refusal) has no subject, attribute or claim but `verified: no`: a forged
 * update can neither spend a real user's budget nor claim a real update id.
 */
export function telegramRateLimitFeature(bots: TelegramBots, sizes?: GroupSizes): RateLimitFeature {
  const update = (ctx: SubjectContext) =>
    ctx.state.deferredBy === undefined ? bots.update(ctx.req) : undefined;
  return {
    attributes: {
      verified: (ctx) => (ctx.state.deferredBy === undefined ? 'yes' : 'no'),
      chatType: (ctx) => update(ctx)?.chatType,
      command: (ctx) => update(ctx)?.action,
      kind: (ctx) => update(ctx)?.kind,
      role: (ctx) => {
        const u = update(ctx);
        const bot = bots.bot(ctx.req);
        if (!u || !bot) return undefined;
        return u.userId !== undefined && bot.adminUserIds.includes(u.userId) ? 'admin' : 'user';
      },
    },
    claims: {
      [UPDATE_CLAIM]: (ctx) => {
        const u = update(ctx);
        const bot = bots.bot(ctx.req);
        return u && bot
          ? { id: updateClaimId(bot.id, u.updateId), ttlMs: UPDATE_CLAIM_TTL_MS }
          : undefined;
      },
    },
    costs: {
      telegram: (req) => {
        // An unverified request costs 1: its body is not trusted.
        if (requestState(req).deferredBy !== undefined) return 1;
        const u = bots.update(req);
        const bot = bots.bot(req);
        return u?.action !== undefined && bot ? (bot.commandCosts[u.action] ?? 1) : 1;
      },
    },
    // A group's chat-wide bucket × its size's factor (docs/telegram.md#group-size): a cached count, never a wait.
    scales: sizes && {
      chat: (ctx, subject) => {
        const bot = bots.bot(ctx.req);
        const type = update(ctx)?.chatType;
        if (!bot?.groupScale || (type !== 'group' && type !== 'supergroup')) return 1;
        const members = sizes.members(bot.id, subject.value);
        return members === undefined ? 1 : groupFactor(bot.groupScale, members);
      },
    },
    subjects: {
      // Users and chats are per bot: two tenants' bots never share a user's or a chat's budget or score.
      user: (ctx) => {
        const id = update(ctx)?.userId;
        const bot = bots.bot(ctx.req);
        return id !== undefined && bot ? { value: id, personal: true, scope: bot.id } : undefined;
      },
      chat: (ctx) => {
        const id = update(ctx)?.chatId;
        const bot = bots.bot(ctx.req);
        return id !== undefined && bot ? { value: id, personal: true, scope: bot.id } : undefined;
      },
      command: (ctx) => {
        const a = update(ctx)?.action;
        return a === undefined ? undefined : { value: a, personal: false };
      },
      bot: (ctx) => {
        const b = ctx.state.deferredBy === undefined ? bots.bot(ctx.req) : undefined;
        return b ? { value: b.id, personal: false } : undefined;
      },
    },
  };
}
