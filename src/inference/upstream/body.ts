import type { Readable } from 'node:stream';
import { upstreamFailed } from '../inference.errors.js';

type Body = Readable;

/** Reads a body up to `max` bytes; a longer one is dropped and fails the call (502). */
export async function readLimited(body: Body, max: number): Promise<Buffer> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > max) {
      discard(body);
      throw upstreamFailed(`the upstream answer is larger than ${max} bytes`);
    }
    parts.push(chunk);
  }
  return Buffer.concat(parts);
}

/** Drops a body we will not read (and the connection under it); undici reports that as an error, which is expected. */
export function discard(body: Body): void {
  body.on('error', () => undefined);
  body.destroy();
}
