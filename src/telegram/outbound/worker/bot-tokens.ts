import { Api } from 'grammy';
import { reloadToken, tokenFingerprint } from '../../telegram.settings.js';
import type { BotConfig } from '../../telegram.types.js';

interface Loaded {
  gen: number;
  token: string;
  api: Api;
}

/**
 * The outbound grammY clients, one per bot and token generation. When the
 * registry's generation moves past the one loaded (a rotation swapped the
 * token), the token is read again from its file before the next send, so no
 * worker sends with a token older than the registry's.
 */
export class BotTokens {
  private readonly loaded = new Map<string, Loaded>();

  constructor(
    private readonly apiRoot: string,
    private readonly timeoutMs: number,
  ) {}

  api(bot: BotConfig, gen: number): Api {
    let l = this.loaded.get(bot.id);
    if (!l || l.gen < gen) {
      // Generation 0 is the token the service booted with; later ones are read again.
      const token = gen === 0 ? bot.token : reloadToken(bot);
      l = {
        gen,
        token,
        api: new Api(token, { apiRoot: this.apiRoot, timeoutSeconds: this.timeoutMs / 1000 }),
      };
      this.loaded.set(bot.id, l);
    }
    return l.api;
  }

  /** The token in use for a bot (to scrub it from an error message). */
  token(bot: BotConfig): string {
    return this.loaded.get(bot.id)?.token ?? bot.token;
  }

  /** The fingerprint of the token in use. */
  fingerprint(bot: BotConfig): string {
    return tokenFingerprint(this.token(bot));
  }
}
