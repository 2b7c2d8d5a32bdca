import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';

/** Used only when neither REDIS_DATA_KEY nor RATE_LIMIT_KEY_SECRET is set: ids are then encoded, not protected. */
const FALLBACK = 'rampart-outbound-ids-fallback-key (set REDIS_DATA_KEY)';
const SEALED = /^v1\.([A-Za-z0-9_-]{16})\.([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]{22})$/;

/**
 * Chat ids (in a private chat, the Telegram user id) as the sender stores them in Redis
 * (docs/security.md#ids-in-redis): a keyed pseudonym (HMAC-SHA256, 128 bits) wherever the id only names
 * something (lane keys, pacing keys), and AES-256-GCM (random 96-bit IV, authenticated) where the sender
 * needs the id back to send (the job hash). Both keys are derived (HKDF-SHA256) from one secret that every
 * instance shares and that is never stored in Redis.
 */
export class IdCipher {
  private readonly macKey: Buffer;
  private readonly encKey: Buffer;

  constructor(secret: string) {
    const ikm = Buffer.from(secret, 'utf8');
    this.macKey = Buffer.from(hkdfSync('sha256', ikm, 'rampart', 'outbound ids: pseudonym', 32));
    this.encKey = Buffer.from(hkdfSync('sha256', ikm, 'rampart', 'outbound ids: aes-256-gcm', 32));
  }

  /** From REDIS_DATA_KEY, else RATE_LIMIT_KEY_SECRET, else a built-in key (ids then encoded, not protected). */
  static from(dataKey: string | undefined, rateLimitKey: string | undefined): IdCipher {
    return new IdCipher(dataKey ?? rateLimitKey ?? FALLBACK);
  }

  /** True when no secret is configured: REDIS_DATA_KEY and RATE_LIMIT_KEY_SECRET both unset. */
  static unprotected(dataKey: string | undefined, rateLimitKey: string | undefined): boolean {
    return dataKey === undefined && rateLimitKey === undefined;
  }

  /** A stable keyed pseudonym of `id` (22 characters of base64url). */
  pseudonym(id: string): string {
    return createHmac('sha256', this.macKey).update(id).digest('base64url').slice(0, 22);
  }

  /** `id` encrypted: `v1.<iv>.<ciphertext>.<tag>` (base64url). */
  seal(id: string): string {
    const iv = randomBytes(12);
    const c = createCipheriv('aes-256-gcm', this.encKey, iv);
    const ct = Buffer.concat([c.update(id, 'utf8'), c.final()]);
    return `v1.${iv.toString('base64url')}.${ct.toString('base64url')}.${c.getAuthTag().toString('base64url')}`;
  }

  /** The id `seal` gave; a value in another form is returned as is (jobs queued before ids were sealed). */
  open(v: string): string {
    const m = SEALED.exec(v);
    if (!m) return v;
    const d = createDecipheriv('aes-256-gcm', this.encKey, Buffer.from(m[1]!, 'base64url'));
    d.setAuthTag(Buffer.from(m[3]!, 'base64url'));
    return Buffer.concat([d.update(Buffer.from(m[2]!, 'base64url')), d.final()]).toString('utf8');
  }
}
