import { describe, expect, it } from 'vitest';
import { parseDictionary } from './structured-fields.js';
import {
  SfBytes,
  SfParseError,
  SfToken,
  isInnerList,
  type InnerList,
  type Item,
} from './structured-fields.types.js';
import { serializeInnerList } from './structured-fields-serialize.js';

describe(parseDictionary.name, () => {
  it('should parse items, inner lists, parameters and bare keys (RFC 8941 examples)', () => {
    const d = parseDictionary(
      'en="Applepie", da=:w4ZibGV0w6ZydGU=:, a=?0, b, c;foo=bar, n=-12, f=4.5, l=("x" y);q=1',
    );
    expect((d.get('en') as Item).value).toBe('Applepie');
    expect(((d.get('da') as Item).value as SfBytes).bytes.toString('utf8')).toBe('Æbletærte');
    expect((d.get('a') as Item).value).toBe(false);
    expect((d.get('b') as Item).value).toBe(true);
    expect(((d.get('c') as Item).params.get('foo') as SfToken).value).toBe('bar');
    expect((d.get('n') as Item).value).toBe(-12);
    expect((d.get('f') as Item).value).toBe(4.5);
    const l = d.get('l')!;
    expect(isInnerList(l)).toBe(true);
    expect(
      (l as InnerList).items.map((i) => (i.value instanceof SfToken ? i.value.value : i.value)),
    ).toEqual(['x', 'y']);
  });

  it.each([
    'a=',
    'a=1,',
    'A=1',
    'a="unterminated',
    'a=:not base64!:',
    'a=(1 2',
    'a=1234567890123456',
    'a=1.2345',
    'a=?2',
    'a="\\x"',
    'a=1 b=2',
  ])('should refuse %j with SfParseError', (v) => {
    expect(() => parseDictionary(v)).toThrow(SfParseError);
  });

  it('should serialise an inner list canonically (the @signature-params line)', () => {
    const l = parseDictionary(
      'sig=(  "@method"   "content-digest" );created=1618884473;keyid="k\\"1";flag;alg=hmac',
    ).get('sig') as InnerList;
    expect(serializeInnerList(l)).toBe(
      '("@method" "content-digest");created=1618884473;keyid="k\\"1";flag;alg=hmac',
    );
  });
});
