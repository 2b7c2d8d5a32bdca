/** RFC 8941 serialisation of the values RFC 9421 needs (the `@signature-params` line). */
import { SfToken, type BareItem, type InnerList, type Params } from './structured-fields.types.js';

export function serializeBareItem(v: BareItem): string {
  if (typeof v === 'number')
    return Number.isInteger(v) ? String(v) : String(Math.round(v * 1000) / 1000);
  if (typeof v === 'string') return `"${v.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
  if (typeof v === 'boolean') return v ? '?1' : '?0';
  if (v instanceof SfToken) return v.value;
  return `:${v.bytes.toString('base64')}:`;
}

export function serializeParams(params: Params): string {
  let out = '';
  for (const [k, v] of params) out += v === true ? `;${k}` : `;${k}=${serializeBareItem(v)}`;
  return out;
}

/** Canonical serialisation of an inner list with its parameters. */
export function serializeInnerList(list: InnerList): string {
  return `(${list.items.map((it) => serializeBareItem(it.value) + serializeParams(it.params)).join(' ')})${serializeParams(list.params)}`;
}
