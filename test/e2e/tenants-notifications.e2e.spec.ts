/**
 * Tenant isolation of notification jobs (docs/telegram-outbound.md#tenants), on both adapters and both
 * stores: a second, hostile app can neither read another app's job, pre-claim its next job id, collapse its
 * waiting job, nor send through a bot that is declared for another app; the admin sees every job with its app
 * and replays one app's dead job by its ref.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, AdminClient } from '../support/admin-client.js';
import { ADAPTERS, RunningApp, startApp } from '../support/app.js';
import { FakeBotApi, startFakeBotApi } from '../support/fake-bot-api.js';
import { redisUrl, uniqueEnv } from '../support/redis-env.js';
import {
  Notify,
  SLOW_MACHINE,
  notice,
  outboundSetup,
  ready,
  token,
} from '../support/telegram-outbound.js';

const STORES = [
  { store: 'memory', env: (): Record<string, string> => ({}) },
  ...(redisUrl()
    ? [{ store: 'redis', env: () => ({ REDIS_URL: redisUrl(), RAMPART_ENV: uniqueEnv('tnj') }) }]
    : []),
];

describe.each(ADAPTERS.flatMap((adapter) => STORES.map((s) => ({ adapter, ...s }))))(
  'notification jobs are per app ($adapter, $store store)',
  ({ adapter, env }) => {
    let api: FakeBotApi;
    let app: RunningApp;
    let ours: Notify;
    let theirs: Notify;
    let admin: AdminClient;

    beforeAll(async () => {
      api = await startFakeBotApi();
      const s = outboundSetup(
        [
          { id: 'shared', scope: 'news', token: token(1, 'T') },
          { id: 'own', scope: 'private', token: token(2, 'T'), apps: ['app-e2e'] },
        ],
        api.url,
        // A first call on a loaded machine can take over FAST's 1 s: a timeout is ambiguous, so dead.
        // The dead job's 500s take the bot out of rotation (unhealthyAfter 5): its replay waits for
        // the getMe probe, probeMs after them (10 s by default, 0.5 s here).
        { ...SLOW_MACHINE, probeMs: 500 },
      );
      app = await startApp(
        { ...s.env, ...env(), HTTP_ADAPTER: adapter, ADMIN_TOKEN },
        { search: 'empty' },
      );
      ours = new Notify(app.url, s.app);
      theirs = new Notify(app.url, s.other);
      admin = new AdminClient(app);
      await ready(ours);
    });
    afterAll(async () => {
      await app?.close();
      await api?.close();
    });

    it("should not show one app's job to another", async () => {
      const j = notice(301, 'news');
      expect((await ours.post(j)).status).toBe(202);
      const [mine] = await ours.settled([j.job_id]);
      // The reason is shown when it ended dead (a timeout is ambiguous: dead `ambiguous_timeout`).
      expect([mine!.state, mine!.reason]).toEqual(['sent', undefined]);
      expect(mine).toMatchObject({ job_id: j.job_id, app: 'app-e2e' });
      const peek = await theirs.get(j.job_id);
      expect([peek.status, peek.body.error]).toEqual([404, 'unknown_job']);
    });

    it("should not let another app pre-claim an app's next job id", async () => {
      const next = notice(302, 'news');
      const squat = await theirs.post({ ...next, payload: { text: 'squatted' } });
      expect(((await squat.json()) as { jobs: { status: string }[] }).jobs[0]!.status).toBe(
        'queued',
      );
      const res = await ours.post(next);
      expect(((await res.json()) as { jobs: { status: string }[] }).jobs[0]!.status).toBe('queued');
      await ours.settled([next.job_id]);
      await theirs.settled([next.job_id]);
      const texts = api.calls
        .filter((c) => String(c.body.chat_id) === '302')
        .map((c) => c.body.text);
      expect(texts.sort()).toEqual([next.job_id, 'squatted'].sort());
    });

    it("should not let another app collapse an app's waiting job", async () => {
      const waiting = notice(303, 'news', { collapse_key: 'status', not_before: Date.now() + 400 });
      expect((await ours.post(waiting)).status).toBe(202);
      expect((await theirs.post(notice(303, 'news', { collapse_key: 'status' }))).status).toBe(202);
      const [v] = await ours.settled([waiting.job_id]);
      expect(v).toMatchObject({ state: 'sent' });
    });

    it("should refuse a job for a bot declared for another app, naming only the app's own scopes", async () => {
      const res = await theirs.post(notice(304, 'private'));
      expect(res.status).toBe(400);
      const body = (await res.json()) as { error: string; problems: string[] };
      expect(body.error).toBe('invalid_notifications');
      expect(body.problems.join('\n')).toMatch(/bot_scope/);
      expect(body.problems.join('\n')).not.toMatch(/private/);
      const mine = notice(305, 'private');
      expect((await ours.post(mine)).status).toBe(202);
      expect((await ours.settled([mine.job_id]))[0]).toMatchObject({ state: 'sent', bot: 'own' });
    });

    it('should show the admin every app’s jobs with their app', async () => {
      const a = notice(306, 'news', { deadline: new Date(Date.now() + 1_500).toISOString() });
      api.rule({ chat: '306', status: 500 }); // retried until its deadline: dead, no chat block kept
      expect((await ours.post(a)).status).toBe(202);
      expect((await theirs.post({ ...a })).status).toBe(202);
      await ours.settled([a.job_id], ['dead']);
      await theirs.settled([a.job_id], ['dead']);
      const dead = await admin.get<{ jobs: { job_id: string; app: string; ref: string }[] }>(
        '/admin/telegram/dead',
      );
      const refs = dead.body.jobs.filter((j) => j.job_id === a.job_id).map((j) => j.ref);
      expect(refs.sort()).toEqual([`app-debug/${a.job_id}`, `app-e2e/${a.job_id}`]);
      // A replay names one app's job by its ref (a bare job id names none): the other app's stays dead.
      api.clearRules();
      const replay = await admin.call<{ replayed: string[] }>(
        'POST',
        '/admin/telegram/dead/replay',
        {
          job_ids: [`app-e2e/${a.job_id}`, a.job_id],
        },
      );
      expect(replay.body.replayed).toEqual([`app-e2e/${a.job_id}`]);
      expect((await ours.settled([a.job_id], ['sent']))[0]).toMatchObject({ state: 'sent' });
      expect((await theirs.get(a.job_id)).body).toMatchObject({ state: 'dead' });
    });
  },
);
