/**
 * The part of RFC 8941 (Structured Field Values) that RFC 9421 and RFC 9530
 * need: parsing dictionaries of items / inner lists with parameters (keys
 * and bare items are read in structured-fields-items.ts, the values are in
 * structured-fields.types.ts, serialising in structured-fields-serialize.ts).
 * Parse errors are thrown as SfParseError and nothing else.
 */
import { SfReader } from './structured-fields-items.js';
import type {
  BareItem,
  Dictionary,
  InnerList,
  Item,
  Member,
  Params,
} from './structured-fields.types.js';

class Parser extends SfReader {
  dictionary(): Dictionary {
    const dict: Dictionary = new Map();
    this.skipSp();
    while (this.i < this.s.length) {
      const key = this.key();
      let member: Member;
      if (this.peek() === '=') {
        this.i++;
        member = this.peek() === '(' ? this.innerList() : this.item();
      } else {
        member = { value: true, params: this.params() };
      }
      dict.set(key, member);
      this.skipOws();
      if (this.i >= this.s.length) return dict;
      if (this.peek() !== ',') this.fail('expected ","');
      this.i++;
      this.skipOws();
      if (this.i >= this.s.length) this.fail('trailing ","');
    }
    return dict;
  }

  innerList(): InnerList {
    if (this.peek() !== '(') this.fail('expected "("');
    this.i++;
    const items: Item[] = [];
    for (;;) {
      this.skipSp();
      if (this.peek() === ')') {
        this.i++;
        return { items, params: this.params() };
      }
      if (this.i >= this.s.length) this.fail('unterminated inner list');
      items.push(this.item());
      const c = this.peek();
      if (c !== ' ' && c !== ')') this.fail('expected " " or ")"');
    }
  }

  item(): Item {
    const value = this.bareItem();
    return { value, params: this.params() };
  }

  params(): Params {
    const params: Params = new Map();
    while (this.peek() === ';') {
      this.i++;
      this.skipSp();
      const key = this.key();
      let value: BareItem = true;
      if (this.peek() === '=') {
        this.i++;
        value = this.bareItem();
      }
      params.set(key, value);
    }
    return params;
  }
}

/** Parses a Dictionary field value (e.g. Signature-Input, Signature, Content-Digest). */
export function parseDictionary(value: string): Dictionary {
  const p = new Parser(value.replace(/^ +| +$/g, ''));
  return p.dictionary();
}
