/**
 * Redis could not answer in time (down, reconnecting, timed out, connection
 * lost mid-command). Every lock has a written decision for this error.
 * Built without a stack trace: during an outage it is thrown on every request.
 */
export class RedisUnavailableError extends Error {
  override readonly name = 'RedisUnavailableError';
  constructor(
    readonly operation: string,
    readonly reason: string,
  ) {
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(`redis unavailable during ${operation}: ${reason}`);
    Error.stackTraceLimit = limit;
  }
}

/** A Lua script failed for a reason other than availability (a bug or bad arguments); names the script. */
export class RedisScriptError extends Error {
  override readonly name = 'RedisScriptError';
  constructor(
    readonly script: string,
    message: string,
  ) {
    super(`lua script "${script}" failed: ${message}`);
  }
}

const UNAVAILABLE = [
  'Command timed out',
  "Stream isn't writeable",
  'Connection is closed',
  'connect ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'max retries per request',
  'MaxRetriesPerRequest',
  'Cluster is not ready',
  'None of startup nodes is available',
  'Failed to refresh slots cache',
  'CLUSTERDOWN',
  'LOADING',
  'TRYAGAIN',
  'MASTERDOWN',
  // A primary demoted by a failover (Sentinel, managed Redis) until the client reconnects to the new one.
  'READONLY',
];

/** True when an ioredis error means "Redis is not reachable right now" rather than "the command is wrong". */
export function isUnavailable(err: unknown): boolean {
  if (err instanceof RedisUnavailableError) return true;
  const msg = err instanceof Error ? err.message : String(err);
  const name = err instanceof Error ? err.name : '';
  return name === 'MaxRetriesPerRequestError' || UNAVAILABLE.some((s) => msg.includes(s));
}

/** The error a failed call becomes (availability → RedisUnavailableError, else RedisScriptError), and its kind for the metrics. */
export function redisErrorOf(
  name: string,
  err: unknown,
): { kind: 'unavailable' | 'error'; error: Error } {
  if (!isUnavailable(err))
    return { kind: 'error', error: new RedisScriptError(name, (err as Error).message) };
  const error =
    err instanceof RedisUnavailableError
      ? err
      : new RedisUnavailableError(name, (err as Error).message);
  return { kind: 'unavailable', error };
}
