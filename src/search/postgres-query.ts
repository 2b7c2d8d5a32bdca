import type { Pool, PoolClient, QueryResultRow } from 'pg';

/**
 * Runs one query on its own pooled connection and honours an AbortSignal:
 * on abort it stops waiting at once (rejecting with the signal's reason)
 * and asks the server to cancel the statement (`pg_cancel_backend` from
 * another connection). The connection goes back to the pool only after the
 * statement has ended and the cancel request has returned, so a late cancel
 * can never hit the next user of that connection.
 */
export async function cancellableQuery<R extends QueryResultRow>(
  pool: Pool,
  sql: string,
  params: unknown[],
  signal?: AbortSignal,
): Promise<R[]> {
  signal?.throwIfAborted();
  const client = await pool.connect();
  if (!signal) {
    try {
      return (await client.query<R>(sql, params)).rows;
    } finally {
      client.release();
    }
  }
  if (signal.aborted) {
    client.release();
    signal.throwIfAborted();
  }
  return runWithCancel<R>(pool, client, sql, params, signal);
}

async function runWithCancel<R extends QueryResultRow>(
  pool: Pool,
  client: PoolClient,
  sql: string,
  params: unknown[],
  signal: AbortSignal,
): Promise<R[]> {
  const running = client.query<R>(sql, params);
  let cancelled: Promise<unknown> | undefined;
  let onAbort!: () => void;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => {
      const pid = (client as unknown as { processID: number }).processID;
      cancelled = pool.query('SELECT pg_cancel_backend($1)', [pid]).catch(() => undefined);
      reject(signal.reason as Error);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return (await Promise.race([running, aborted])).rows;
  } finally {
    signal.removeEventListener('abort', onAbort);
    void Promise.allSettled([running, cancelled]).then(() => client.release());
  }
}
