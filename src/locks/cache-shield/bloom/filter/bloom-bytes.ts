import { BLOOM_HASH, BLOOM_HASH_CODE } from './bloom-hash.js';

const MAGIC = 0x524d4246; // "RMBF"
const FORMAT = 1;
/** Bytes before the bit array in the binary form. */
export const HEADER_BYTES = 16;

/** Binary form of a filter: 16-byte header (magic, format, hash, k, m) then the bits. */
export function filterBytes(m: number, k: number, bits: Uint8Array): Buffer {
  const out = Buffer.allocUnsafe(HEADER_BYTES + bits.length);
  out.writeUInt32BE(MAGIC, 0);
  out.writeUInt8(FORMAT, 4);
  out.writeUInt8(BLOOM_HASH_CODE, 5);
  out.writeUInt8(k, 6);
  out.writeUInt8(0, 7);
  out.writeUInt32BE(m, 8);
  out.writeUInt32BE(0, 12);
  out.set(bits, HEADER_BYTES);
  return out;
}

/** Reads the binary form; throws on another format, another hash, or a truncated array. */
export function readFilterBytes(buf: Uint8Array): { m: number; k: number; bits: Uint8Array } {
  const b = Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength);
  if (b.length < HEADER_BYTES || b.readUInt32BE(0) !== MAGIC)
    throw new Error('bloom: not a serialised filter');
  if (b.readUInt8(4) !== FORMAT)
    throw new Error(`bloom: format ${b.readUInt8(4)} is not supported`);
  if (b.readUInt8(5) !== BLOOM_HASH_CODE)
    throw new Error(`bloom: hash ${b.readUInt8(5)} is not ${BLOOM_HASH}; rebuild the filter`);
  const k = b.readUInt8(6);
  const m = b.readUInt32BE(8);
  if (b.length !== HEADER_BYTES + Math.ceil(m / 8))
    throw new Error('bloom: bit array length does not match m');
  return { m, k, bits: new Uint8Array(b.subarray(HEADER_BYTES)) };
}
