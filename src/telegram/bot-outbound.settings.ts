import { type OutboundBuckets, parseBuckets } from './outbound/outbound.settings.js';

/** Group and channel ids a bot may declare (`outbound.chats`), at most this many. */
const MAX_CHATS = 10_000;

/** A bot's own `outbound` block, parsed. */
export interface BotOutbound {
  /** Its buckets, laid over the global ones; undefined: the global ones. */
  buckets?: OutboundBuckets;
  /** The only chats it sends to (group and channel ids); undefined: any chat its 403s allow. */
  chats?: ReadonlySet<string>;
}

/**
 * Parses a bot's own `outbound` block (`telegram.bots[].outbound`): its `buckets`, laid over the global
 * `telegram.outbound.buckets` (a bucket it does not name keeps the global one), and `chats`, the groups and
 * channels it is a member of (docs/telegram-outbound.md#a-403-another-bot-of-the-scope): routing gives a
 * bot that lists chats only those. Only negative ids: a private chat's id is a user's, kept out of config
 * (a bot learns those from /start and 403s).
 */
export function botOutbound(
  v: unknown,
  base: OutboundBuckets,
  at: string,
  p: string[],
): BotOutbound {
  if (v === undefined) return {};
  if (typeof v !== 'object' || v === null || Array.isArray(v)) {
    p.push(`${at}.outbound must be an object ({ buckets, chats })`);
    return {};
  }
  const out: { buckets?: OutboundBuckets; chats?: ReadonlySet<string> } = {};
  for (const [k, bv] of Object.entries(v as Record<string, unknown>)) {
    if (k === 'buckets') out.buckets = parseBuckets(bv, base, `${at}.outbound.buckets`, p);
    else if (k === 'chats') out.chats = chats(bv, `${at}.outbound.chats`, p);
    else p.push(`${at}.outbound.${k} is not a known option (buckets, chats)`);
  }
  return out;
}

function chats(v: unknown, at: string, p: string[]): ReadonlySet<string> | undefined {
  const ok = (c: unknown) =>
    (Number.isSafeInteger(c) && (c as number) < 0) ||
    (typeof c === 'string' && /^-[1-9]\d{0,18}$/.test(c));
  if (!Array.isArray(v) || v.length === 0 || v.length > MAX_CHATS || !v.every(ok)) {
    p.push(
      `${at} must be a list of 1–${MAX_CHATS} group or channel ids (negative integers; no private chats)`,
    );
    return undefined;
  }
  return new Set(v.map(String));
}
