import { afterEach, describe, expect, it } from 'vitest';
import { OutboundWorkers } from '../../src/telegram/outbound/outbound-workers.service.js';
import { OutboundRig } from '../support/outbound-rig.js';
import { redisUrl } from '../support/redis-env.js';
import { notice, token } from '../support/telegram-outbound.js';

const BOTS = [{ id: 's', scope: 'ops', token: token(8, 'S') }];
const NEVER = 60_000;
const RUNS = Number(process.env.WAKE_RUNS ?? 1);

describe.skipIf(!redisUrl())('telegram outbound: a worker just started (redis)', () => {
  let rig: OutboundRig | undefined;
  afterEach(async () => rig?.close());

  it('in-process start', { timeout: 600_000 }, async () => {
    let missed = 0;
    for (let i = 0; i < RUNS; i++) {
      rig = (await OutboundRig.open('redis', 'tgs'))!;
      const app = await rig.start(BOTS, { workers: false, safetyPollMs: NEVER, leaseMs: 60_000 });
      app.app.get(OutboundWorkers, { strict: false }).start();
      const jobs = [1, 2, 3, 4, 5, 6, 7, 8].map((c) => notice(3100 + c, 'ops'));
      await rig.notify.post(jobs);
      try {
        await rig.notify.settled(jobs.map((j) => j.job_id), ['sent'], 8_000);
      } catch (e) {
        missed++;
        console.log(`run ${i}: ${(e as Error).message.slice(0, 300)}`);
      }
      await rig.close();
      rig = undefined;
    }
    expect(missed).toBe(0);
  });
});
