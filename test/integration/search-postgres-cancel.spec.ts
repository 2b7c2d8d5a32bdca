import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cancellableQuery } from '../../src/search/postgres-query.js';
import { POSTGRES_URL, postgresAvailable } from '../fixtures/search/postgres.js';

const withPostgres = await postgresAvailable();

describe.skipIf(!withPostgres)(cancellableQuery.name, () => {
  const appName = `rampart-cancel-test-${process.pid}-${Date.now()}`;
  let pool: pg.Pool;
  let watcher: pg.Client;

  /** Statements of our pool still running on the server. */
  async function running(): Promise<string[]> {
    const r = await watcher.query<{ query: string }>(
      "SELECT query FROM pg_stat_activity WHERE application_name = $1 AND state = 'active'",
      [appName],
    );
    return r.rows.map((row) => row.query);
  }

  async function until(cond: () => Promise<boolean>, ms = 5_000): Promise<boolean> {
    const end = Date.now() + ms;
    while (Date.now() < end) {
      if (await cond()) return true;
      await new Promise((r) => setTimeout(r, 20));
    }
    return cond();
  }

  beforeAll(async () => {
    pool = new pg.Pool({ connectionString: POSTGRES_URL, max: 3, application_name: appName });
    watcher = new pg.Client(POSTGRES_URL);
    await watcher.connect();
  });
  afterAll(async () => {
    await pool?.end();
    await watcher?.end();
  });

  it('should return the rows when the signal never fires', async () => {
    const rows = await cancellableQuery<{ n: number }>(
      pool,
      'SELECT $1::int + 1 AS n',
      [41],
      new AbortController().signal,
    );
    expect(rows).toEqual([{ n: 42 }]);
  });

  it('should stop waiting on abort, cancel the statement on the server and give the connection back', async () => {
    const ctl = new AbortController();
    const call = cancellableQuery(pool, 'SELECT pg_sleep(20)', [], ctl.signal);
    expect(await until(async () => (await running()).some((q) => q.includes('pg_sleep')))).toBe(
      true,
    );
    ctl.abort(new Error('breaker gave up'));
    await expect(call).rejects.toThrow('breaker gave up');
    expect(await until(async () => !(await running()).some((q) => q.includes('pg_sleep')))).toBe(
      true,
    );
    expect(
      await until(async () => pool.idleCount === pool.totalCount && pool.waitingCount === 0),
    ).toBe(true);
    expect(await cancellableQuery<{ ok: number }>(pool, 'SELECT 1 AS ok', [])).toEqual([{ ok: 1 }]);
  });

  it('should not even take a connection when the signal has already fired', async () => {
    const ctl = new AbortController();
    ctl.abort(new Error('too late'));
    const before = pool.totalCount - pool.idleCount;
    await expect(cancellableQuery(pool, 'SELECT 1', [], ctl.signal)).rejects.toThrow('too late');
    expect(pool.totalCount - pool.idleCount).toBe(before);
  });
});
