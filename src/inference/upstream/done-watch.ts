/** Bytes of the stream's end kept: enough for its last event, `data: [DONE]` and the blank line after it. */
const TAIL = 64;

/**
 * Whether an upstream's event stream, read so far, ends with its `data: [DONE]` event: the answer is whole, and
 * a failure of the connection after it (a reset, a timeout before the body's end) loses nothing of it.
 */
export class DoneWatch {
  private tail = '';

  /** One chunk read off the stream. */
  read(chunk: Buffer): void {
    // latin1: one character a byte, so a UTF-8 character cut between two chunks cannot hide the ASCII marker.
    // Only the chunk's last TAIL bytes can end up in the tail: the rest is never decoded.
    this.tail = (this.tail + chunk.subarray(-TAIL).toString('latin1')).slice(-TAIL);
  }

  get done(): boolean {
    return /(?:^|\n)data: ?\[DONE\][ \t]*\r?\n\r?\n\s*$/.test(this.tail);
  }
}
