/**
 * RFC 8941's bare items and keys, read from a string with a cursor: the lexical layer under
 * structured-fields.ts, which builds dictionaries, inner lists and parameters on it. Parse errors
 * are thrown as SfParseError and nothing else.
 */
import { SfBytes, SfParseError, SfToken, type BareItem } from './structured-fields.types.js';

const KEY_START = /[a-z*]/;
const KEY_CHAR = /[a-z0-9_\-.*]/;
const TOKEN_START = /[A-Za-z*]/;
const TOKEN_CHAR = /[!#$%&'*+\-.^_`|~0-9A-Za-z:/]/;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** A cursor over a field value, reading keys and bare items. */
export class SfReader {
  i = 0;
  constructor(readonly s: string) {}

  fail(what: string): never {
    throw new SfParseError(`${what} at position ${this.i}`);
  }
  peek(): string {
    return this.s[this.i] ?? '';
  }
  skipSp(): void {
    while (this.s[this.i] === ' ') this.i++;
  }
  skipOws(): void {
    while (this.s[this.i] === ' ' || this.s[this.i] === '\t') this.i++;
  }

  key(): string {
    if (!KEY_START.test(this.peek())) this.fail('expected a key');
    const start = this.i;
    while (this.i < this.s.length && KEY_CHAR.test(this.s[this.i]!)) this.i++;
    return this.s.slice(start, this.i);
  }

  bareItem(): BareItem {
    const c = this.peek();
    if (c === '-' || (c >= '0' && c <= '9')) return this.number();
    if (c === '"') return this.string();
    if (c === ':') return this.bytes();
    if (c === '?') return this.boolean();
    if (TOKEN_START.test(c)) return this.token();
    return this.fail('expected an item');
  }

  number(): number {
    const m = /^-?(\d{1,15})(\.\d{1,3})?/.exec(this.s.slice(this.i, this.i + 20));
    if (!m) this.fail('bad number');
    if (m[2] !== undefined && m[1]!.length > 12) this.fail('decimal too long');
    this.i += m[0].length;
    const next = this.peek();
    if (next >= '0' && next <= '9') this.fail('number too long');
    if (next === '.') this.fail('bad decimal');
    return Number(m[0]);
  }

  string(): string {
    this.i++;
    let out = '';
    for (;;) {
      if (this.i >= this.s.length) this.fail('unterminated string');
      const c = this.s[this.i++]!;
      if (c === '\\') {
        const n = this.s[this.i++];
        if (n !== '"' && n !== '\\') this.fail('bad escape');
        out += n;
      } else if (c === '"') {
        return out;
      } else {
        const code = c.charCodeAt(0);
        if (code < 0x20 || code > 0x7e) this.fail('bad character in string');
        out += c;
      }
    }
  }

  token(): SfToken {
    const start = this.i;
    this.i++;
    while (this.i < this.s.length && TOKEN_CHAR.test(this.s[this.i]!)) this.i++;
    return new SfToken(this.s.slice(start, this.i));
  }

  bytes(): SfBytes {
    this.i++;
    const end = this.s.indexOf(':', this.i);
    if (end < 0) this.fail('unterminated byte sequence');
    const b64 = this.s.slice(this.i, end);
    if (!BASE64.test(b64)) this.fail('bad base64');
    this.i = end + 1;
    return new SfBytes(Buffer.from(b64, 'base64'));
  }

  boolean(): boolean {
    const v = this.s[this.i + 1];
    if (v !== '0' && v !== '1') this.fail('bad boolean');
    this.i += 2;
    return v === '1';
  }
}
