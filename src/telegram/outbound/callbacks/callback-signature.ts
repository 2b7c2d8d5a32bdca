import { createHmac } from 'node:crypto';

/** The header of a completion event's signature: `t=<unix seconds>,v1=<hex HMAC-SHA256>`. */
export const CALLBACK_SIGNATURE_HEADER = 'rampart-signature';

/**
 * Signs a completion event the way Stripe signs webhooks: HMAC-SHA256 with
 * the app's callback secret over `<t>.<raw body>`, `t` the unix time in
 * seconds. The receiver recomputes it, compares in constant time and refuses
 * a `t` older than its tolerance (5 minutes is usual): a replayed event fails.
 */
export function signCallback(secret: string, body: string, nowMs: number): string {
  const t = Math.floor(nowMs / 1000);
  const v1 = createHmac('sha256', secret).update(`${t}.${body}`).digest('hex');
  return `t=${t},v1=${v1}`;
}
