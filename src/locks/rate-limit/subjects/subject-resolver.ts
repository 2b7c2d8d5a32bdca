import { createHmac } from 'node:crypto';
import { CidrSet } from '../../../http/cidr.js';
import { clientAddress, header } from '../../../http/http-context.js';
import type { LockContext } from '../../../chain/lock.types.js';
import type { Dimension } from '../rate-limit.types.js';

/** A subject before it enters a key: personal ones (IP, user, chat) are hashed with the shared key. */
export interface Subject {
  value: string;
  personal: boolean;
}

const GLOBAL: Subject = { value: '-', personal: false };
const SAFE = /^[A-Za-z0-9._\-/]{1,128}$/;
const MAX_USER = 256;

/**
 * The subject of each dimension for one request, from the shared request
 * state: app/tier (signature lock), user (verified identity, else the
 * configured header, else the Telegram sender), ip (client address with
 * trusted proxies, stored in state.clientIp), route, Telegram command / chat /
 * bot, and a constant for global. Undefined = missing (the rule is skipped).
 */
export class SubjectResolver {
  constructor(
    private readonly trusted: CidrSet,
    private readonly userHeader: string | undefined,
  ) {}

  resolve(
    dimension: Dimension,
    ctx: Pick<LockContext, 'req' | 'state' | 'route'>,
  ): Subject | undefined {
    const s = ctx.state;
    switch (dimension) {
      case 'global':
        return GLOBAL;
      case 'app':
        return s.appId ? { value: s.appId, personal: false } : undefined;
      case 'user': {
        const id =
          s.userId ??
          (this.userHeader ? header(ctx.req, this.userHeader)?.trim() : undefined) ??
          s.telegram?.userId;
        return id ? { value: id.slice(0, MAX_USER), personal: true } : undefined;
      }
      case 'ip': {
        s.clientIp ??= clientAddress(ctx.req, this.trusted);
        return s.clientIp ? { value: s.clientIp, personal: true } : undefined;
      }
      case 'route': {
        const r = s.route ?? ctx.route;
        return r ? { value: `${ctx.req.method}${r}`, personal: false } : undefined;
      }
      case 'command':
        return s.telegram?.command ? { value: s.telegram.command, personal: false } : undefined;
      case 'chat':
        return s.telegram?.chatId ? { value: s.telegram.chatId, personal: true } : undefined;
      case 'bot':
        return s.telegram?.botId ? { value: s.telegram.botId, personal: false } : undefined;
    }
  }
}

/**
 * Turns subjects into key parts: personal values as a keyed hash (HMAC-SHA256,
 * 96 bits, base64url), others escaped so they can never break the key schema.
 * Not cached here: request-buckets.ts caches whole bucket keys per hasher, rule
 * and subject (floods repeat the same subjects), so this runs on a miss only.
 */
export class KeyHasher {
  constructor(private readonly secret: Buffer) {}

  part(dimension: Dimension, s: Subject): string {
    if (!s.personal)
      return SAFE.test(s.value)
        ? s.value
        : encodeURIComponent(s.value)
            .replace(/[*.'()!~]/g, (c) => `%${c.charCodeAt(0).toString(16)}`)
            .slice(0, 256);
    return createHmac('sha256', this.secret)
      .update(`${dimension}\u0000${s.value}`)
      .digest('base64url')
      .slice(0, 16);
  }
}
