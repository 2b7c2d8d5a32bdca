import { createHash, timingSafeEqual } from 'node:crypto';
import type { RampartConfig } from '../../config/config.types.js';

/** Longest bearer token accepted, in characters (longer headers are refused before hashing). */
const MAX_TOKEN_LENGTH = 512;
/** RFC 6750 `b64token`. */
const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;

interface Entry {
  id: string;
  digest: Buffer;
}

/**
 * The admin credentials: ADMIN_TOKEN (actor id `env`) and the hashed tokens
 * of ADMIN_TOKENS_FILE. A presented token is hashed once and compared with
 * every stored SHA-256 in constant time, without stopping at a match.
 */
export class AdminTokens {
  private readonly entries: Entry[];

  constructor(tokens: { id: string; sha256: string }[], envToken?: string) {
    this.entries = tokens.map((t) => ({ id: t.id, digest: Buffer.from(t.sha256, 'hex') }));
    if (envToken !== undefined) this.entries.push({ id: 'env', digest: sha256(envToken) });
  }

  static fromConfig(config: RampartConfig): AdminTokens {
    return new AdminTokens(config.adminTokens, config.adminToken);
  }

  /** False when no admin credential is configured: the admin API then stays closed. */
  get configured(): boolean {
    return this.entries.length > 0;
  }

  /** The token id of a valid `Authorization: Bearer …` header value, else undefined. */
  verify(authorization: string | undefined): string | undefined {
    const token = bearerToken(authorization);
    if (token === undefined) return undefined;
    const digest = sha256(token);
    let found: string | undefined;
    for (const e of this.entries) {
      if (timingSafeEqual(digest, e.digest) && found === undefined) found = e.id;
    }
    return found;
  }
}

/** The token of an `Authorization: Bearer <token>` value (scheme case-insensitive), or undefined. */
export function bearerToken(authorization: string | undefined): string | undefined {
  if (!authorization || authorization.length > MAX_TOKEN_LENGTH + 16) return undefined;
  const m = /^Bearer +(\S+) *$/i.exec(authorization);
  const token = m?.[1];
  if (!token || token.length > MAX_TOKEN_LENGTH || !B64TOKEN.test(token)) return undefined;
  return token;
}

function sha256(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}
