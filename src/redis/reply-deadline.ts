import { RedisUnavailableError } from './redis.errors.js';

/**
 * `call` within `ms`, measured so that a stalled event loop does not read as
 * a slow Redis. A plain timer (ioredis `commandTimeout`) fires in the timers
 * phase, before the poll phase reads the socket: after a GC pause or a long
 * synchronous task, every command in flight "timed out" although its reply
 * was already waiting. Here the timer only arms one `setImmediate` (the check
 * phase, after poll): a reply that arrived in the meantime is read first, and
 * the call fails only when Redis really did not answer. The client's own
 * command timeout stays as a backstop for a connection that never answers.
 */
export function replyDeadline<T>(
  call: Promise<T>,
  ms: number,
  what: string,
  reason = 'Command timed out',
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    const timer = setTimeout(
      () =>
        setImmediate(() => {
          if (settled) return;
          settled = true;
          reject(new RedisUnavailableError(what, reason));
        }),
      ms,
    );
    call.then(
      (v) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(v);
      },
      (err: unknown) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        reject(err);
      },
    );
  });
}

/** The client-side backstop (ioredis `commandTimeout`) for a reply deadline of `ms`: a stall this long is an outage. */
export function backstopMs(ms: number): number {
  return Math.max(1_000, ms * 20);
}
