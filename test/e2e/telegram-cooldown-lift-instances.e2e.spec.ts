/**
 * A cooldown lifted early through instance A's admin API ends on instance B's worker too, when B learnt it
 * itself (its own 429 with a retry_after of an hour): on a real redis-server, with every poll, registry
 * refresh and recheck set far beyond the test, B's sends can only come from the lift's message (the lift
 * channel); with that message lost, from B's recheck of the gate. A cooldown set again after the lift holds.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OutboundWorkers } from '../../src/telegram/outbound/outbound-workers.service.js';
import type { RunningApp } from '../support/app.js';
import { OutboundRig, parkedBehind429 } from '../support/outbound-rig.js';
import { redisServerAvailable } from '../support/redis-server.js';
import { SLOW_MACHINE, token } from '../support/telegram-outbound.js';

const BOT = { id: 'lb', scope: 'ops', token: token(8, 'X') };
const NEVER = 600_000;

describe.skipIf(!redisServerAvailable())('lifting a cooldown learnt by another instance', () => {
  let rig: OutboundRig;

  /** A: the admin API, no worker. B: the only worker; its registry cache and recheck last `bRecheckMs`. */
  async function start(bRecheckMs: number): Promise<RunningApp> {
    const slow = { ...SLOW_MACHINE, safetyPollMs: NEVER, registryRefreshMs: NEVER };
    await rig.start([BOT], { ...slow, workers: false });
    return rig.start([BOT], { ...slow, safetyPollMs: bRecheckMs, registryRefreshMs: bRecheckMs });
  }
  const lift = async () => {
    const lifted = await rig.admin.call('PUT', '/admin/telegram/bots/lb/state', {
      state: 'active',
    });
    expect(lifted.status).toBe(200);
  };

  beforeEach(async () => {
    rig = (await OutboundRig.open('own-redis', 'lift2'))!;
  });
  afterEach(() => rig.close());

  it(
    "should have B send right after a lift through A's admin API, and hold a cooldown set again after it",
    { timeout: 90_000 },
    async () => {
      await start(NEVER);
      const ids = await parkedBehind429(rig, BOT, 51);
      await lift();
      const views = await rig.notify.settled(ids, ['sent', 'dead'], 20_000);
      expect(views.map((v) => v.state)).toEqual(['sent', 'sent', 'sent']);
      expect(rig.texts(BOT.token).filter((t) => t === ids[0])).toHaveLength(2); // the 429, then the send
      // Cooled again after the lift (a new 429 of an hour): nothing of the bot leaves inside it.
      const again = await parkedBehind429(rig, BOT, 61);
      const sent = rig.texts(BOT.token).length;
      await new Promise((r) => setTimeout(r, 1_000));
      expect(rig.texts(BOT.token)).toHaveLength(sent);
      expect(rig.texts(BOT.token).filter((t) => again.includes(t as string))).toEqual([again[0]]);
    },
  );

  it(
    'should have B send after a lift whose message it missed, at its recheck of the gate',
    { timeout: 90_000 },
    async () => {
      const b = await start(300);
      const ids = await parkedBehind429(rig, BOT, 71);
      // B stops listening (the lift's message is lost to it); its recheck (every 300 ms) reads the gate.
      (b.app.get(OutboundWorkers) as unknown as { unwatch: () => void }).unwatch();
      await lift();
      const views = await rig.notify.settled(ids, ['sent', 'dead'], 20_000);
      expect(views.map((v) => v.state)).toEqual(['sent', 'sent', 'sent']);
    },
  );
});
