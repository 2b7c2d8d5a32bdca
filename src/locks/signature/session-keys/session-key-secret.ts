import { createHmac, type KeyObject } from 'node:crypto';

/**
 * The secret of a session key: base64url(HMAC-SHA256(app secret, key id)),
 * 43 characters. Like an app secret, its UTF-8 bytes are the HMAC key of the
 * requests signed with it. The server derives it again from the key id and
 * each active app secret, so nothing is stored.
 */
export function sessionKeySecret(
  appSecret: string | Uint8Array | KeyObject,
  keyId: string,
): string {
  return createHmac('sha256', appSecret).update(keyId, 'utf8').digest('base64url');
}
