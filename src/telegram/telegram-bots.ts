import { createHash, timingSafeEqual } from 'node:crypto';
import type { AnyRequest } from '../http/http-context.js';
import { ClassifiedUpdate, classifyUpdate } from './telegram-update.js';
import type { BotConfig, TelegramSettings } from './telegram.types.js';

const UPDATE = Symbol('rampart:telegram-update');

interface Parsed {
  bot?: BotConfig;
  update?: ClassifiedUpdate;
}

function digest(s: string): Buffer {
  return createHash('sha256').update(s, 'utf8').digest();
}

/**
 * The configured bots, and what one webhook request means: which bot its
 * path names (only when the path secret matches, compared in constant time)
 * and its classified update — worked out once per request and kept on it,
 * so the locks' extractors and the handler read the same answer.
 */
const NOT_A_WEBHOOK: Parsed = Object.freeze({ bot: undefined, update: undefined });

export class TelegramBots {
  private readonly byId = new Map<string, BotConfig>();

  constructor(readonly settings: TelegramSettings) {
    for (const b of settings.bots) this.byId.set(b.id, b);
  }

  all(): BotConfig[] {
    return [...this.byId.values()];
  }

  get(id: string): BotConfig | undefined {
    return this.byId.get(id);
  }

  /** The bot the request's path names, when its path secret matches; else undefined. */
  bot(req: AnyRequest): BotConfig | undefined {
    return this.parsed(req).bot;
  }

  /** The request's update when it came for a known bot and has an `update_id`; else undefined. */
  update(req: AnyRequest): ClassifiedUpdate | undefined {
    return this.parsed(req).update;
  }

  private parsed(req: AnyRequest): Parsed {
    // Not a webhook route: nothing to parse or remember (no property added to every other request).
    if (req.params?.botId === undefined) return NOT_A_WEBHOOK;
    const target = (req.raw ?? req) as AnyRequest;
    let p = target[UPDATE] as Parsed | undefined;
    if (p) return p;
    const bot = this.fromPath(req.params?.botId, req.params?.pathSecret);
    p = { bot, update: bot ? classifyUpdate(req.body, bot.username) : undefined };
    target[UPDATE] = p;
    return p;
  }

  private fromPath(id: string | undefined, secret: string | undefined): BotConfig | undefined {
    // Not a webhook route (no `:botId`): nothing to hide, and no hashing on every other request.
    if (id === undefined) return undefined;
    const bot = this.byId.get(id);
    // Compared whatever the id, so the time does not tell a known bot id from an unknown one.
    const same = timingSafeEqual(digest(secret ?? ''), digest(bot?.pathSecret ?? '\0'));
    // An outbound-only bot has no webhook: no path reaches it, answered as an unknown bot.
    return bot?.pathSecret !== undefined && same ? bot : undefined;
  }
}
