/**
 * Bot health over HTTP against the fake Bot API on loopback: a bot whose
 * sends fail (500) in a row is taken out of rotation (its chats go to the
 * other bot of the scope), shown in /health/ready and the admin API, probed
 * with getMe while out, and back in once a probe succeeds.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { READY_DETAIL } from '../support/admin-client.js';
import type { HttpAdapterName } from '../../src/http/http-adapters.js';
import { type OutboundStore, OutboundRig } from '../support/outbound-rig.js';
import { notice, token } from '../support/telegram-outbound.js';

const SICK = { id: 'sick', scope: 'hs', token: token(1, 'H') };
const WELL = { id: 'well', scope: 'hs', token: token(2, 'H') };

type Bot = { id: string; health: string; consecutive_failures: number; last_success?: string };

const RUNS: [HttpAdapterName, OutboundStore][] = [
  ['express', 'memory'],
  ['fastify', 'redis'],
];

describe.each(RUNS)('bot health (%s, %s store)', (adapter, store) => {
  let rig: OutboundRig | undefined;

  beforeAll(async () => {
    rig = await OutboundRig.open(store, 'tgh');
    await rig?.start(
      [SICK, WELL],
      {
        unhealthyAfter: 2,
        probeMs: 100,
        maxAttempts: 10,
        // Two sends under way at most: the bound on sends to the sick bot below is about health, not
        // about how many reserved sends (up to `concurrency`) were already in flight when it went out.
        concurrency: 2,
      },
      { env: { HTTP_ADAPTER: adapter } },
    );
  });
  afterAll(() => rig?.close());

  const sick = async () =>
    (await rig!.admin.call<{ bots: Bot[] }>('GET', '/admin/telegram/bots')).body.bots.find(
      (b) => b.id === SICK.id,
    )!;

  it('should take a failing bot out of rotation, show it, probe it with getMe and take it back', async () => {
    if (!rig) return;
    const { api, notify } = rig;
    const app = rig.apps[0]!;
    api.rule({ token: SICK.token, status: 500 }); // sends and probes alike
    const jobs = Array.from({ length: 8 }, (_, i) => notice(800 + i, 'hs'));
    await notify.post({ jobs });
    // Every job is delivered: those whose chats rank the sick bot first go to the other one.
    const views = await notify.settled(
      jobs.map((j) => j.job_id),
      ['sent', 'dead'],
      20_000,
    );
    expect(views.map((v) => [v.state, v.bot])).toEqual(jobs.map(() => ['sent', WELL.id]));
    const failedSends = api.calls.filter(
      (c) => c.token === SICK.token && c.method === 'sendMessage',
    );
    // Out after 2 failures in a row: no more sends to it (at most the few already under way).
    expect(failedSends.length).toBeGreaterThanOrEqual(2);
    expect(failedSends.length).toBeLessThanOrEqual(4);
    const out = await sick();
    expect(out.health).toMatch(/out|probing/);
    expect(out.consecutive_failures).toBeGreaterThanOrEqual(2);
    const health = await (await fetch(`${app.url}/health/ready`, READY_DETAIL)).text();
    expect(health).toMatch(/sick: out of rotation/);

    // Probed while out (getMe, failing here), then back once a probe succeeds.
    api.clearRules();
    for (let i = 0; i < 300 && (await sick()).health !== 'up'; i++) {
      // A job routed to the scope asks routing, which starts the due probe.
      await notify.post({ jobs: [notice(900 + i, 'hs')] });
      await new Promise((r) => setTimeout(r, 50));
    }
    const back = await sick();
    expect(back).toMatchObject({ health: 'up', consecutive_failures: 0 });
    expect(back.last_success).toBeDefined();
    expect(api.calls.some((c) => c.token === SICK.token && c.method === 'getMe')).toBe(true);
    expect(await (await fetch(`${app.url}/health/ready`, READY_DETAIL)).text()).not.toMatch(
      /sick: out of rotation/,
    );
  });
});
