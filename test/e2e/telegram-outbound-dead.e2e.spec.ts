/**
 * Dead letters of the outbound sender, each reason from a real answer of the
 * fake Bot API (403, a hang, 5xx, a long 429 past the deadline, 401), listed
 * and replayed through the admin API; a revoked bot shows in /health/ready.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { READY_DETAIL } from '../support/admin-client.js';
import { OUTBOUND_STORES, OutboundRig } from '../support/outbound-rig.js';
import { notice, token } from '../support/telegram-outbound.js';

const BOTS = [
  { id: 'c', scope: 'ops', token: token(3, 'D') },
  { id: 'r', scope: 'gone', token: token(4, 'D') },
];

// The two stores' cases run at the same time (most of their time is sends timing out): each has its own rig (fake
// Bot API, app, Redis prefix) and shares nothing with the other.
describe.each(OUTBOUND_STORES)(
  'telegram outbound dead letters (%s store)',
  { concurrent: true },
  (store) => {
    let rig: OutboundRig | undefined;

    beforeAll(async () => {
      rig = await OutboundRig.open(store, 'tgd');
      // A Bot API answer later than FAST's 1 s is a timeout (ambiguous): on a loaded machine a 401 or 403
      // could be taken for one. 3 s: only the hanging call times out.
      await rig?.start(BOTS, { requestTimeoutMs: 3_000, leaseMs: 5_000 });
    });
    afterAll(() => rig?.close());

    it.sequential('should dead-letter with each reason, list them, and replay them', async () => {
      if (!rig) return;
      const { api, notify, admin } = rig;
      const app = rig.apps[0]!;
      api.rule({ chat: '701', status: 403 });
      api.rule({ chat: '702', hang: true, times: 1 });
      api.rule({ chat: '703', status: 500 });
      api.rule({ chat: '-704', status: 429, retryAfter: 5 });
      api.rule({ token: token(4, 'D'), status: 401 });
      const jobs = {
        forbidden: notice(701, 'ops'),
        ambiguous_timeout: notice(702, 'ops'),
        max_attempts: notice(703, 'ops'),
        deadline: notice(-704, 'ops', { deadline: new Date(Date.now() + 2_000).toISOString() }),
        revoked: notice(705, 'gone'),
      };
      expect((await notify.post(Object.values(jobs))).status).toBe(202);
      const views = await notify.settled(
        Object.values(jobs).map((j) => j.job_id),
        ['dead'],
      );
      expect(views.map((v) => v.reason)).toEqual(Object.keys(jobs));
      expect(views[2]!.attempts).toBe(3);
      expect(JSON.stringify(views)).not.toContain(token(4, 'D'));

      const dead = await admin.call<{
        jobs: { job_id: string; app: string; ref: string; reason: string }[];
      }>('GET', '/admin/telegram/dead');
      expect(dead.status).toBe(200);
      const listed = Object.fromEntries(dead.body.jobs.map((j) => [j.job_id, j.reason]));
      for (const [reason, j] of Object.entries(jobs)) expect(listed[j.job_id]).toBe(reason);
      // The admin sees every app's jobs, each with its app; a replay names a job by its ref.
      const refs = Object.fromEntries(dead.body.jobs.map((j) => [j.job_id, j.ref]));
      expect(dead.body.jobs.every((j) => j.ref === `${j.app}/${j.job_id}`)).toBe(true);

      const bots = await admin.call<{ bots: { id: string; state: string }[] }>(
        'GET',
        '/admin/telegram/bots',
      );
      expect(bots.body.bots.find((b) => b.id === 'r')?.state).toBe('revoked');
      const health = await fetch(`${app.url}/health/ready`, READY_DETAIL);
      expect(await health.text()).toMatch(/r: revoked/);

      api.clearRules();
      const ids = [jobs.ambiguous_timeout, jobs.max_attempts, jobs.forbidden].map((j) => j.job_id);
      const replay = await admin.call<{ replayed: string[] }>(
        'POST',
        '/admin/telegram/dead/replay',
        {
          job_ids: ids.map((id) => refs[id]),
        },
      );
      expect(replay.body.replayed.sort()).toEqual(ids.map((id) => refs[id]).sort());
      const again = await notify.settled(ids, ['sent', 'dead']);
      expect(again.map((v) => [v.state, v.attempts])).toEqual([
        ['sent', 0],
        ['sent', 0],
        // 403 made chat 701 unreachable for the scope's only bot: dead again without a call.
        ['dead', 0],
      ]);
      expect(api.calls.filter((c) => c.body.chat_id === '701').length).toBe(1);

      const put = await admin.call('PUT', '/admin/telegram/bots/r/state', { state: 'active' });
      expect(put.status).toBe(200);
      await admin.call('POST', '/admin/telegram/dead/replay', {
        job_ids: [refs[jobs.revoked.job_id]],
      });
      expect((await notify.settled([jobs.revoked.job_id], ['sent']))[0]).toMatchObject({
        bot: 'r',
      });
    });
  },
);
