/**
 * A job posted right after a worker reports started is sent without waiting for the safety poll (60 s
 * here, past every wait of this file): a worker process (`npm run worker`) just started, a worker started
 * in a second instance as that process does (its own queue store, bus and roster), and a second instance
 * joining a running one (partitions handed over while the jobs come). The order of events inside is
 * forced in test/integration/telegram-outbound-wake-start.spec.ts; here the real parts, as often as
 * WAKE_RUNS says (default once; the CI failure was 2 in 5 runs of the workers e2e).
 */
import type { ChildProcess } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { OutboundWorkers } from '../../src/telegram/outbound/outbound-workers.service.js';
import { OutboundRig } from '../support/outbound-rig.js';
import { startWorkerProcess } from '../support/outbound-worker-process.js';
import { startApp } from '../support/app.js';
import { redisUrl, suiteRedisEnv, uniqueEnv } from '../support/redis-env.js';
import { Notify, notice, outboundSetup, ready, token } from '../support/telegram-outbound.js';

const BOTS = [{ id: 's', scope: 'ops', token: token(8, 'S') }];
/** Past every wait here: a job sent in time was not found by a safety poll. */
const POLL = { safetyPollMs: 60_000, leaseMs: 60_000, requestTimeoutMs: 10_000 };
const RUNS = Number(process.env.WAKE_RUNS ?? 1);
/** A worker's first send (code not yet compiled) took over 5 s on a loaded CI machine: well below 60 s. */
const WAIT = 20_000;

/** Jobs for 12 chats (every partition of 4 has some, whichever worker owns it); sent within WAIT. */
async function postAndSee(notify: Notify, from: number): Promise<void> {
  const jobs = Array.from({ length: 12 }, (_, i) => notice(from + i, 'ops'));
  expect((await notify.post(jobs)).status).toBe(202);
  const views = await notify.settled(
    jobs.map((j) => j.job_id),
    ['sent'],
    WAIT,
  );
  expect(views.every((v) => v.state === 'sent')).toBe(true);
}

describe.skipIf(!redisUrl())('telegram outbound: a worker just started (redis)', () => {
  let rig: OutboundRig | undefined;
  let child: ChildProcess | undefined;
  afterEach(async () => {
    child?.kill('SIGKILL');
    child = undefined;
    await rig?.close();
    rig = undefined;
  });

  it(
    'should send a job posted right after a worker process logged that it started',
    { timeout: 120_000 + RUNS * 60_000 },
    async () => {
      for (let i = 0; i < RUNS; i++) {
        rig = (await OutboundRig.open('redis', 'tgsp'))!;
        const s = outboundSetup(BOTS, rig.api.url, { ...POLL, workers: false });
        // The suite's Redis as the process must name it (a Cluster's nodes in e2e-cluster mode).
        const env = { ...s.env, ...suiteRedisEnv(), RAMPART_ENV: uniqueEnv('tgsp') };
        const app = await startApp(env);
        const notify = new Notify(app.url, s.app);
        await ready(notify);
        try {
          child = await startWorkerProcess(env);
          await postAndSee(notify, 9_200);
        } finally {
          child?.kill('SIGKILL');
          child = undefined;
          await app.close();
        }
        await rig.close();
        rig = undefined;
      }
    },
  );

  it(
    'should send a job posted right after another instance started its worker',
    { timeout: 60_000 + RUNS * 30_000 },
    async () => {
      for (let i = 0; i < RUNS; i++) {
        rig = (await OutboundRig.open('redis', 'tgsi'))!;
        await rig.start(BOTS, { ...POLL, workers: false });
        const b = await rig.start(BOTS, { ...POLL, workers: false });
        // What `npm run worker` does: start, then report it (the API instance posts the jobs).
        b.app.get(OutboundWorkers, { strict: false }).start();
        await postAndSee(rig.notify, 9_300);
        await rig.close();
        rig = undefined;
      }
    },
  );

  it(
    'should send jobs posted while a second worker joins a running one, in every partition',
    { timeout: 60_000 + RUNS * 30_000 },
    async () => {
      for (let i = 0; i < RUNS; i++) {
        rig = (await OutboundRig.open('redis', 'tgsj'))!;
        await rig.start(BOTS, POLL);
        await postAndSee(rig.notify, 9_400); // the first worker alone, settled
        // The second joins: the first hands it partitions (its steal bound, half a lease, is 30 s).
        await rig.start(BOTS, POLL);
        await postAndSee(rig.notify, 9_500);
        await rig.close();
        rig = undefined;
      }
    },
  );
});
