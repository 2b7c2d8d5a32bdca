import { readDataFile } from './data-file.js';
import { isRecord } from '../common/is-record.js';

/** One admin bearer token, stored only as the SHA-256 of its value. */
export interface AdminTokenHash {
  /** Who holds the token; recorded as the actor of every admin change (`[A-Za-z0-9_.-]{1,64}`). */
  id: string;
  /** Lower-case hex SHA-256 of the token's UTF-8 bytes (`printf %s "$TOKEN" | sha256sum`). */
  sha256: string;
}

const ID = /^[A-Za-z0-9_.-]{1,64}$/;
const SHA256_HEX = /^[0-9a-fA-F]{64}$/;

/**
 * Validates the content of ADMIN_TOKENS_FILE: a list of `{ id, sha256 }`, or
 * `{ tokens: [ … ] }`. Every problem is reported; a hash never appears in a message.
 */
export function parseAdminTokens(raw: unknown, p: { add(m: string): void }): AdminTokenHash[] {
  const list = Array.isArray(raw) ? raw : isRecord(raw) ? raw.tokens : undefined;
  if (!Array.isArray(list) || list.length === 0) {
    p.add(
      'ADMIN_TOKENS_FILE must hold a non-empty list of { id, sha256 } (top-level list or "tokens:")',
    );
    return [];
  }
  const out: AdminTokenHash[] = [];
  const ids = new Set<string>();
  list.forEach((entry, i) => {
    const at = `ADMIN_TOKENS_FILE: tokens[${i}]`;
    if (!isRecord(entry)) return p.add(`${at} must be an object { id, sha256 }`);
    for (const k of Object.keys(entry))
      if (k !== 'id' && k !== 'sha256') p.add(`${at}.${k}: unknown field (known: id, sha256)`);
    const { id, sha256 } = entry;
    let ok = true;
    if (typeof id !== 'string' || !ID.test(id)) {
      p.add(`${at}.id must be 1-64 characters of [A-Za-z0-9_.-]`);
      ok = false;
    } else if (ids.has(id)) {
      p.add(`${at}.id "${id}" is used twice`);
      ok = false;
    }
    if (typeof sha256 !== 'string' || !SHA256_HEX.test(sha256)) {
      p.add(`${at}.sha256 must be the 64 hex digits of the token's SHA-256`);
      ok = false;
    }
    if (!ok) return;
    ids.add(id as string);
    out.push({ id: id as string, sha256: (sha256 as string).toLowerCase() });
  });
  return out;
}

/** Reads ADMIN_TOKENS_FILE (JSON when it ends in .json, YAML otherwise). */
export function loadAdminTokensFile(path: string, p: { add(m: string): void }): AdminTokenHash[] {
  let failed = false;
  const raw = readDataFile(path, 'ADMIN_TOKENS_FILE', { add: (m) => ((failed = true), p.add(m)) });
  return failed ? [] : parseAdminTokens(raw, p);
}
