/**
 * An idle instance is nearly silent on Redis (docs/operations.md#idle-cost): one instance with the
 * default settings on a private redis-server (MONITOR sees every command), ready and past its boot
 * work, sends at most about one command a second over a window — its heartbeat carries the
 * unchanged admin counters, and nobody reading the status series means no series read. The bound
 * is the window's length in seconds plus a small constant (a safety poll or the Redis figures
 * sample may fall in it), never a time measured. Reading the series is what starts its reads.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, AdminClient, eventually } from '../support/admin-client.js';
import { RunningApp, startApp } from '../support/app.js';
import {
  type MonitoredCommand,
  RedisProcess,
  monitorCommands,
  redisServerAvailable,
  startRedis,
} from '../support/redis-server.js';

const WINDOW_S = 20;
/** The occasional slow checks a window may hold: Redis figures sample (≤ 6 commands), version checks (3), a resync (≤ 2). */
const SLACK = 6;

/** A command the app sent itself (commands run inside Lua scripts are the script's one call). */
const own = (c: MonitoredCommand): boolean =>
  c.source !== 'lua' && !/^(monitor|info)$/i.test(c.args[0] ?? '');
const isHeartbeat = (c: MonitoredCommand): boolean =>
  own(c) && /^evalsha$/i.test(c.args[0] ?? '') && /^rl:.+:instances$/.test(c.args[3] ?? '');
/** A command of its own on the admin counters (the heartbeat carrying them is not one). */
const onStats = (c: MonitoredCommand): boolean =>
  own(c) && !isHeartbeat(c) && c.args.some((a) => /^cfg:.+:stats$/.test(a));

describe.skipIf(!redisServerAvailable())('idle instance on Redis', () => {
  let redis: RedisProcess;
  let app: RunningApp;
  const seen: MonitoredCommand[] = [];
  let monitor: { stop: () => void } | undefined;

  beforeAll(async () => {
    redis = await startRedis();
    monitor = await monitorCommands(redis.port, (c) => seen.push(c));
    app = await startApp(
      { REDIS_URL: redis.url, RAMPART_ENV: 'idle', ADMIN_TOKEN },
      { search: 'empty' },
    );
    await eventually(
      async () => (await fetch(`${app.url}/health/ready`)).status,
      (s) => s === 200,
      60_000,
      100,
    );
  }, 90_000);
  afterAll(async () => {
    monitor?.stop();
    await app?.close();
    await redis?.stop();
  });

  /** Resolves after `n` more heartbeats than seen so far. */
  async function heartbeats(n: number): Promise<void> {
    const target = seen.filter(isHeartbeat).length + n;
    while (seen.filter(isHeartbeat).length < target) await new Promise((r) => setTimeout(r, 50));
  }

  it(
    'should send an idle instance at most about one Redis command a second, none for the admin counters',
    { timeout: 90_000 },
    async () => {
      await heartbeats(2); // past the boot work: the first beats after /health/ready
      const from = seen.length;
      await new Promise((r) => setTimeout(r, WINDOW_S * 1000));
      const window = seen.slice(from).filter(own);
      const kinds = window.map((c) => `${c.args[0]} ${c.args.slice(1, 4).join(' ')}`);
      expect(window.length, kinds.join('\n')).toBeLessThanOrEqual(WINDOW_S + SLACK);
      const beats = window.filter(isHeartbeat);
      expect(beats.length).toBeGreaterThan(0); // still beating: live
      expect(beats.every((c) => c.args.some((a) => /^cfg:.+:stats$/.test(a)))).toBe(true);
      expect(window.filter(onStats).map((c) => c.args[0])).toEqual([]);
    },
  );

  it('should read the other instances’ counters when someone asks for the series', async () => {
    const from = seen.length;
    const res = await new AdminClient(app).get('/admin/status/series');
    expect(res.status).toBe(200);
    // A marker sent after the answer: the read, made before the answer, is among the lines before it.
    const marker = new Redis(redis.url);
    await marker.echo('after-series-answer');
    marker.disconnect();
    const isMarker = (c: MonitoredCommand) => c.args[1] === 'after-series-answer';
    while (!seen.slice(from).some(isMarker)) await new Promise((r) => setTimeout(r, 20));
    const before = seen.slice(
      from,
      seen.findIndex((c, i) => i >= from && isMarker(c)),
    );
    expect(before.filter(onStats).map((c) => c.args[0]!.toLowerCase())).toContain('hgetall');
  }, 30_000);
});
