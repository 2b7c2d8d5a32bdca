/**
 * The moving parts of one outbound e2e test: a fake Bot API, a store (the embedded queue, the suite's
 * Redis under a unique env, or a redis-server of the test's own), the apps started on them with their bots
 * and settings, and a signed notifications client and an admin client on the first app; closed together.
 *
 *   rig = await OutboundRig.open('redis');      // undefined without a suite Redis: skip
 *   await rig.start(BOTS, { leaseMs: 5_000 });  // ready: /v1/notifications answers
 *   await rig.notify.post([notice(51, 'ops')]);
 *   await rig.close();
 */
import { ADMIN_TOKEN, AdminClient, eventually } from './admin-client.js';
import { RunningApp, type SearchIndex, startApp } from './app.js';
import { FakeBotApi, startFakeBotApi } from './fake-bot-api.js';
import { redisUrl, uniqueEnv } from './redis-env.js';
import { RedisProcess, startRedis } from './redis-server.js';
import type { RampartConfig } from '../../src/config/config.types.js';
import { Notify, type OutBot, notice, outboundSetup, ready } from './telegram-outbound.js';

/** `memory`: the embedded queue; `redis`: the suite's Redis; `own-redis`: a redis-server of the test's own. */
export type OutboundStore = 'memory' | 'redis' | 'own-redis';

/** The stores most outbound files run on: the embedded queue and the suite's Redis. */
export const OUTBOUND_STORES: OutboundStore[] = ['memory', 'redis'];

export interface RigApp {
  /** Extra environment (over the rig's store and ADMIN_TOKEN; `ADMIN_TOKEN: undefined` for none). */
  env?: Record<string, string | undefined>;
  config?: (c: RampartConfig) => RampartConfig;
  /** The `telegram` block's other settings (outboundSetup's fourth argument). */
  telegram?: Record<string, unknown>;
  /** The search index (startApp's `search`): the cities by default. */
  search?: SearchIndex;
}

export class OutboundRig {
  readonly apps: RunningApp[] = [];
  /** Signed calls of the first app's APPS_FILE app, to the first app started. */
  notify!: Notify;
  /** The admin API of the first app started. */
  admin!: AdminClient;
  /** The APPS_FILE's second app (another tenant) of the first app started. */
  other!: { appId: string; secret: string };

  private constructor(
    readonly api: FakeBotApi,
    readonly redis: RedisProcess | undefined,
    private readonly storeEnv: Record<string, string>,
  ) {}

  /** Undefined on `redis` when the suite has no Redis (the test skips). */
  static async open(store: OutboundStore, env = 'tgo'): Promise<OutboundRig | undefined> {
    if (store === 'redis' && !redisUrl()) return undefined;
    const redis = store === 'own-redis' ? await startRedis() : undefined;
    const url = store === 'redis' ? redisUrl() : redis?.url;
    const storeEnv: Record<string, string> = url
      ? { REDIS_URL: url, RAMPART_ENV: uniqueEnv(env) }
      : {};
    return new OutboundRig(await startFakeBotApi(), redis, storeEnv);
  }

  /**
   * Starts an app with these bots and outbound settings on the rig's store (every app of a rig shares its
   * Redis env: one queue). The first one started is `notify`'s and `admin`'s, and is ready when this resolves.
   */
  async start(
    bots: OutBot[],
    outbound: Record<string, unknown> = {},
    o: RigApp = {},
  ): Promise<RunningApp> {
    const s = outboundSetup(bots, this.api.url, outbound, o.telegram);
    const env = { ...s.env, ...this.storeEnv, ADMIN_TOKEN, ...o.env };
    const app = await startApp(env, { config: o.config, search: o.search });
    this.apps.push(app);
    if (this.apps.length === 1) {
      this.notify = new Notify(app.url, s.app);
      this.admin = new AdminClient(app);
      this.other = s.other;
      await ready(this.notify);
    }
    return app;
  }

  /** The texts the fake received with this token, in order (a retried job's more than once). */
  texts(token: string): unknown[] {
    return this.api.calls.filter((c) => c.token === token).map((c) => c.body.text);
  }

  async close(): Promise<void> {
    await Promise.all(this.apps.splice(0).map((a) => a.close()));
    await this.api.close();
    await this.redis?.stop();
  }
}

/**
 * A bot cooled for an hour: its only bot's first send (chat `chat`) answers 429 retry_after 3600; a second
 * job of that chat waits behind it and one of chat `chat + 1` is not even claimed. Returns the three job ids.
 */
export async function parkedBehind429(
  rig: OutboundRig,
  bot: OutBot,
  chat: number,
  timeoutMs = 10_000,
): Promise<string[]> {
  rig.api.rule({ token: bot.token, status: 429, retryAfter: 3_600, times: 1 });
  const first = notice(chat, bot.scope);
  await rig.notify.post([first]);
  await rig.api.waitFor((c) => c.body.text === first.job_id, 30_000);
  const later = [notice(chat, bot.scope), notice(chat + 1, bot.scope)];
  const accepted = await rig.notify.post(later);
  if (accepted.status !== 202) throw new Error(`jobs not accepted: ${accepted.status}`);
  await eventually(
    async () => [
      (await rig.notify.get(first.job_id)).body,
      (await rig.notify.get(later[1]!.job_id)).body,
    ],
    (v) => v[0]!.state === 'waiting' && v[1]!.state === 'queued',
    timeoutMs,
  );
  return [first, ...later].map((j) => j.job_id);
}
