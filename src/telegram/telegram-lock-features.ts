import type {
  RateLimitFeature,
  SubjectContext,
} from '../locks/rate-limit/extensions/rate-limit-extensions.js';
import type { SignatureFeature } from '../locks/signature/secret-token/secret-tokens.js';
import type { TelegramBots } from './telegram-bots.js';

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
          return bot ? bot.secretTokens.filter((s): s is string => s !== undefined) : undefined;
        },
      },
    },
  };
}

/**
 * Lock 2: where the limits find their subjects in an update (user, chat,
 * command, bot) and what a command costs (`cost: telegram`). Ids are
 * personal: they enter keys only as keyed hashes.
 */
export function telegramRateLimitFeature(bots: TelegramBots): RateLimitFeature {
  const update = (ctx: SubjectContext) => bots.update(ctx.req);
  return {
    costs: {
      telegram: (req) => {
        const u = bots.update(req);
        const bot = bots.bot(req);
        return u?.action !== undefined && bot ? (bot.commandCosts[u.action] ?? 1) : 1;
      },
    },
    subjects: {
      user: (ctx) => {
        const id = update(ctx)?.userId;
        return id === undefined ? undefined : { value: id, personal: true };
      },
      chat: (ctx) => {
        const id = update(ctx)?.chatId;
        return id === undefined ? undefined : { value: id, personal: true };
      },
      command: (ctx) => {
        const a = update(ctx)?.action;
        return a === undefined ? undefined : { value: a, personal: false };
      },
      bot: (ctx) => {
        const b = bots.bot(ctx.req);
        return b ? { value: b.id, personal: false } : undefined;
      },
    },
  };
}
