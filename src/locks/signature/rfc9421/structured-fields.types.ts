/**
 * The values of RFC 8941 (Structured Field Values) that RFC 9421 and RFC 9530
 * use: dictionaries of items and inner lists with parameters. Parsed by
 * structured-fields.ts, serialised by structured-fields-serialize.ts.
 */

export class SfToken {
  constructor(readonly value: string) {}
}
export class SfBytes {
  constructor(readonly bytes: Buffer) {}
}
export type BareItem = number | string | boolean | SfToken | SfBytes;
export type Params = Map<string, BareItem>;
export interface Item {
  value: BareItem;
  params: Params;
}
export interface InnerList {
  items: Item[];
  params: Params;
}
export type Member = Item | InnerList;
export type Dictionary = Map<string, Member>;

export class SfParseError extends Error {
  override readonly name = 'SfParseError';
}

export function isInnerList(m: Member): m is InnerList {
  return 'items' in m;
}
