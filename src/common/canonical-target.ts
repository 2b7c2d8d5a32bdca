/**
 * The canonical path-and-query of the Rampart-HMAC-SHA256 scheme: pure text
 * functions with no Node or browser API beyond TextEncoder, so the server
 * (signature lock), the Node SDK and the browser SDK share one implementation.
 */
const UTF8 = new TextEncoder();
const HEX = '0123456789ABCDEF';

/** RFC 3986 unreserved characters: A-Z a-z 0-9 - . _ ~ */
function isUnreserved(b: number): boolean {
  return (
    (b >= 0x41 && b <= 0x5a) ||
    (b >= 0x61 && b <= 0x7a) ||
    (b >= 0x30 && b <= 0x39) ||
    b === 0x2d ||
    b === 0x2e ||
    b === 0x5f ||
    b === 0x7e
  );
}

function hexValue(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x41 && c <= 0x46) return c - 0x37;
  if (c >= 0x61 && c <= 0x66) return c - 0x57;
  return -1;
}

/**
 * Percent-decodes to bytes, then re-encodes per RFC 3986: unreserved kept,
 * every other byte `%XX` upper case. `+` is a literal plus (`%2B`), never a
 * space; a `%` not followed by two hex digits is a literal `%` (`%25`).
 */
export function rfc3986Reencode(raw: string): string {
  const bytes = UTF8.encode(raw);
  let out = '';
  for (let i = 0; i < bytes.length; i++) {
    let b = bytes[i]!;
    if (b === 0x25 && i + 2 < bytes.length) {
      const hi = hexValue(bytes[i + 1]!);
      const lo = hexValue(bytes[i + 2]!);
      if (hi >= 0 && lo >= 0) {
        b = hi * 16 + lo;
        i += 2;
      }
    }
    out += isUnreserved(b) ? String.fromCharCode(b) : '%' + HEX[b >> 4]! + HEX[b & 15]!;
  }
  return out;
}

/**
 * Canonical query: split on `&` (empty pieces dropped) and the first `=`,
 * names and values re-encoded per RFC 3986, sorted by encoded name then
 * encoded value (duplicates kept), `k=` for an empty or missing value,
 * joined with `&`. Empty string when there is no parameter.
 */
export function canonicalQuery(rawQuery: string): string {
  if (rawQuery === '') return '';
  const pairs: [string, string][] = [];
  for (const piece of rawQuery.split('&')) {
    if (piece === '') continue;
    const eq = piece.indexOf('=');
    const name = eq < 0 ? piece : piece.slice(0, eq);
    const value = eq < 0 ? '' : piece.slice(eq + 1);
    pairs.push([rfc3986Reencode(name), rfc3986Reencode(value)]);
  }
  pairs.sort((a, b) =>
    a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0,
  );
  return pairs.map(([n, v]) => `${n}=${v}`).join('&');
}

/**
 * Canonical path-and-query: the path exactly as sent (not decoded, not
 * normalised), then `?` and the canonical query only when there is one.
 */
export function canonicalTarget(target: string): string {
  const q = target.indexOf('?');
  if (q < 0) return target;
  const query = canonicalQuery(target.slice(q + 1));
  return query === '' ? target.slice(0, q) : `${target.slice(0, q)}?${query}`;
}
