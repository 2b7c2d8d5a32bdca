import { createHash, timingSafeEqual } from 'node:crypto';

/** Telegram's `secret_token` alphabet and length (setWebhook): 1–256 characters of A-Z a-z 0-9 _ -. */
const TOKEN = /^[A-Za-z0-9_-]{1,256}$/;

export interface TelegramSecrets {
  /** The bot's secret_token now set with setWebhook. */
  current: string;
  /** The one it replaced, accepted during a rotation (Telegram offers no overlap itself). */
  previous?: string;
}

function digest(s: string): Buffer {
  // Hashing first gives both sides the same length, so the compare is constant time whatever the input length.
  return createHash('sha256').update(s, 'utf8').digest();
}

/**
 * Checks an `X-Telegram-Bot-Api-Secret-Token` header value against a bot's
 * current and previous secret, in constant time (both are always compared).
 * Returns which one matched, or false — also for a missing, repeated (array)
 * or ill-formed header.
 */
export function verifyTelegramSecretToken(
  headerValue: string | string[] | undefined,
  secrets: TelegramSecrets,
): 'current' | 'previous' | false {
  const given =
    typeof headerValue === 'string' && TOKEN.test(headerValue) ? headerValue : undefined;
  const g = digest(given ?? '');
  // Both compares always run, so the time does not tell which secret (if any) matched.
  const cur = timingSafeEqual(g, digest(secrets.current));
  const prev = timingSafeEqual(g, digest(secrets.previous ?? ''));
  if (given === undefined) return false;
  if (cur && secrets.current !== '') return 'current';
  return prev && secrets.previous ? 'previous' : false;
}
