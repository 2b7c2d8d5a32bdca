/**
 * An idle instance is nearly silent on Redis, and a job still leaves at once:
 * on a private redis-server (MONITOR sees every command), with every safety
 * poll set far beyond the test's length so that polling cannot explain what
 * happens — an idle instance sends no queue claim, depth read, version check
 * or load computation; a job queued through instance A is sent by the worker
 * of instance B, woken by the queue's wake channel.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RampartConfig } from '../../src/config/config.types.js';
import { OutboundRig } from '../support/outbound-rig.js';
import {
  type MonitoredCommand,
  monitorCommands,
  redisServerAvailable,
} from '../support/redis-server.js';
import { FAST, SLOW_MACHINE, notice, token } from '../support/telegram-outbound.js';
import { rosterTimes } from '../../src/telegram/outbound/queue/redis-worker-roster.js';

const BOTS = [{ id: 'w', scope: 'ops', token: token(7, 'Z') }];
/** Far beyond the test: a claim, depth read or version check in the window cannot be a safety poll. */
const NEVER = 600_000;
const noSafetyPolls = (c: RampartConfig): RampartConfig => ({
  ...c,
  sections: { ...c.sections, admin: { syncIntervalMs: NEVER } },
});

/** The outbound worker's roster beat (liveness, every leaseMs ÷ 6): no poll, counted on its own. */
const isBeat = (c: MonitoredCommand) => c.args.some((a) => /^tgo:\{[^}]*\}:workers$/.test(a));

/** Commands of the idle-path sources: the outbound queue, the admin version checks, the load level. */
function pollOf(c: MonitoredCommand): string | undefined {
  if (c.source === 'lua' || isBeat(c)) return undefined;
  const key = c.args.find((a) => /^(tgo|cfg|rl):/.test(a)) ?? '';
  if (key.startsWith('tgo:')) return `${c.args[0]} queue`;
  if (/^cfg:[^:]+:(apps|policies|bans)/.test(key)) return `${c.args[0]} version`;
  if (/^rl:[^:]+:load/.test(key)) return `${c.args[0]} load`;
  return undefined;
}

describe.skipIf(!redisServerAvailable())('telegram outbound: idle and wake (redis)', () => {
  let rig: OutboundRig;
  const seen: MonitoredCommand[] = [];
  let monitor: { stop: () => void } | undefined;
  /** No admin API (its checks are not what is watched); the safety polls of the admin sync far away. */
  const quiet = { env: { ADMIN_TOKEN: undefined }, config: noSafetyPolls };

  beforeEach(async () => {
    rig = (await OutboundRig.open('own-redis'))!;
    seen.length = 0;
    monitor = await monitorCommands(rig.redis!.port, (c) => seen.push(c));
  });
  afterEach(async () => {
    monitor?.stop();
    await rig.close();
  });

  /** Resolves once the worker's first claim visited every partition (`all` pass): it sleeps from then on. */
  async function firstClaimDone(partitions: number): Promise<void> {
    for (;;) {
      const passes = seen.filter((c) => c.source !== 'lua' && c.args.at(-1) === 'all');
      if (passes.length >= partitions) return;
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  it(
    'should send an idle instance no polling command: no claim, depth read, version check or load computation',
    { timeout: 90_000 },
    async () => {
      await rig.start(BOTS, { safetyPollMs: NEVER }, quiet);
      await firstClaimDone(4);
      const from = seen.length;
      await new Promise((r) => setTimeout(r, 3_000));
      const polls = seen.slice(from).map(pollOf).filter(Boolean);
      expect(polls).toEqual([]);
      // The roster beat is the one periodic call of an idle worker (FAST: a lease of 2.5 s, a beat per 416 ms).
      const beats = seen.slice(from).filter((c) => c.source !== 'lua' && isBeat(c)).length;
      expect(beats).toBeLessThanOrEqual(Math.ceil(3_000 / rosterTimes(FAST.leaseMs).beatMs) + 1);
    },
  );

  it(
    "should send a job queued through instance A with instance B's worker, woken without a poll",
    { timeout: 90_000 },
    async () => {
      const slow = { ...SLOW_MACHINE, safetyPollMs: NEVER };
      await rig.start(BOTS, { ...slow, workers: false }, quiet);
      await rig.start(BOTS, slow, quiet);
      const { api, notify } = rig;
      await firstClaimDone(4);
      const ms: number[] = [];
      for (const chat of [7001, 7002, 7003]) {
        const job = notice(chat, 'ops');
        expect((await notify.post([job])).status).toBe(202);
        const t0 = performance.now();
        await api.waitFor((c) => c.body.text === job.job_id, 60_000);
        ms.push(Math.round(performance.now() - t0));
        const [view] = await notify.settled([job.job_id]);
        expect(view).toMatchObject({ state: 'sent' });
        await firstClaimDone(4 * (ms.length + 1)); // B went back to sleep
      }
      // The wake-up latency (accepted on A → the Bot API call from B), for the record: not asserted.
      console.log(`wake-up latency across instances: ${ms.join(', ')} ms`);
    },
  );
});
