/**
 * One harness for the inference e2e specs (token budgets, spend budgets, usage, the answer cache): the adapter ×
 * store cases, the shipped inference policy with a spec's own rules, the fake upstream and the app started once per
 * case, and signed chat calls (x-user-id names the user). Each spec keeps only what it tests.
 */
import { type IncomingHttpHeaders, request as httpRequest } from 'node:http';
import { afterAll, beforeAll } from 'vitest';
import type { RampartConfig } from '../../src/config/config.types.js';
import type { RuleConfig } from '../../src/locks/rate-limit/rate-limit.types.js';
import { signRequest } from '../../src/sdk/sign-request.js';
import { ADMIN_TOKEN, AdminClient } from './admin-client.js';
import { ADAPTERS, RunningApp, SearchIndex, startApp } from './app.js';
import { FakeOpenAI, startFakeOpenAI } from './fake-openai.js';
import { redisUrl, uniqueEnv } from './redis-env.js';
import { testApps } from './signature-routes.js';

/** Each adapter × the memory store and (when a Redis is there) a Redis store under its own env `<prefix>…`. */
export function inferenceCases(prefix: string) {
  const stores = [
    { store: 'memory', env: (): Record<string, string> => ({}) },
    ...(redisUrl()
      ? [
          {
            store: 'redis',
            env: (): Record<string, string> => ({
              REDIS_URL: redisUrl(),
              RAMPART_ENV: uniqueEnv(prefix),
              REDIS_COMMAND_TIMEOUT_MS: '2000',
            }),
          },
        ]
      : []),
  ];
  return ADAPTERS.flatMap((adapter) => stores.map((s) => ({ adapter, ...s })));
}
export type InferenceCase = ReturnType<typeof inferenceCases>[number];

/** USD per 1M tokens (micro-dollars per token). */
export type Price = { prompt: number; completion: number };

/**
 * The shipped inference policy with `rules` instead of its own, sized by the inference token counter, users
 * named by x-user-id, no tiers nor degrade; `prices` per model; `answerCache` turns the cache shield on.
 */
export function withInferenceRules(
  rules: RuleConfig[],
  o: { prices?: Record<string, Price>; answerCache?: boolean } = {},
): (c: RampartConfig) => RampartConfig {
  return (c) => {
    const inference = c.policies.inference!;
    const rl = inference.locks.rateLimit as unknown as { mode: 'enforce'; rules: RuleConfig[] };
    return {
      ...c,
      sections: {
        ...c.sections,
        rateLimit: { userHeader: 'x-user-id' },
        ...(o.prices ? { inference: { prices: o.prices } } : {}),
      },
      policies: {
        ...c.policies,
        inference: {
          ...inference,
          locks: {
            ...inference.locks,
            rateLimit: { ...rl, tokens: 'inference', tiers: {}, degrade: undefined, rules },
            ...(o.answerCache
              ? { cacheShield: { ...inference.locks.cacheShield, mode: 'enforce' as const } }
              : {}),
          },
        },
      },
    };
  };
}

/** A signed request ready to send: its URL, body text and headers. */
export interface SignedChat {
  url: string;
  text: string;
  headers: Record<string, string>;
}

/** The app, fake upstream and admin client of one case; started before its specs, closed after. */
export class InferenceHarness {
  readonly apps = testApps();
  readonly secrets: Record<string, string> = {
    [this.apps.main.appId]: this.apps.main.secrets[0]!,
    [this.apps.debug.appId]: this.apps.debug.secret,
  };
  fake!: FakeOpenAI;
  app!: RunningApp;
  admin!: AdminClient;
  /** Default fields of every chat body (`call`): the model and one user message. */
  chatDefaults: object = {
    model: 'gpt-4o-mini',
    messages: [{ role: 'user', content: 'Count my tokens, please.' }],
  };

  /** `body` signed for `appId` as `user`, to `path` of `on` (default: this case's app), as given. */
  signed(
    body: object,
    o: { appId?: string; user?: string; on?: RunningApp; path?: string } = {},
  ): SignedChat {
    const appId = o.appId ?? this.apps.main.appId;
    const url = `${(o.on ?? this.app).url}${o.path ?? '/v1/chat/completions'}`;
    const text = JSON.stringify(body);
    const h = signRequest({ appId, secret: this.secrets[appId]!, method: 'POST', url, body: text });
    return {
      url,
      text,
      headers: { 'content-type': 'application/json', 'x-user-id': o.user ?? 'user-1', ...h },
    };
  }

  /** A chat call: `chatDefaults` with `body` over them, signed for `appId` as `user`. */
  call(user: string, body: object, appId = this.apps.main.appId): Promise<Response> {
    return this.send(this.signed({ ...this.chatDefaults, ...body }, { appId, user }));
  }

  send(s: SignedChat): Promise<Response> {
    return fetch(s.url, { method: 'POST', headers: s.headers, body: s.text });
  }

  /**
   * Sends a stream request and drops the connection once `marker` arrived (a client abort mid-answer; the first
   * content chunk of the fake by default); resolves to the answer's headers.
   */
  abortAfter(s: SignedChat, marker = '"This"'): Promise<IncomingHttpHeaders> {
    return new Promise<IncomingHttpHeaders>((resolve, reject) => {
      const req = httpRequest(s.url, { method: 'POST', agent: false, headers: s.headers });
      req.on('response', (res) => {
        let text = '';
        res.on('data', (b: Buffer) => {
          text += b.toString('utf8');
          if (text.includes(marker)) {
            req.destroy();
            resolve(res.headers);
          }
        });
      });
      req.on('error', () => undefined);
      req.end(s.text);
      setTimeout(() => reject(new Error('no first chunk')), 10_000).unref();
    });
  }
}

/**
 * A harness for one case: the fake upstream and the app (with `config`, ADMIN_TOKEN, the test apps, `env`) start
 * before the describe's specs and close after them (on `search`'s index: startApp).
 */
export function useInferenceHarness(
  c: InferenceCase,
  config: (c: RampartConfig) => RampartConfig,
  env: Record<string, string> = {},
  search: SearchIndex = 'cities',
): InferenceHarness {
  const h = new InferenceHarness();
  beforeAll(async () => {
    h.fake = await startFakeOpenAI();
    h.app = await startApp(
      {
        ...c.env(),
        HTTP_ADAPTER: c.adapter,
        INFERENCE_UPSTREAM_URL: h.fake.url,
        APPS_FILE: h.apps.file,
        ADMIN_TOKEN,
        ...env,
      },
      { config, search },
    );
    h.admin = new AdminClient(h.app);
  });
  afterAll(async () => {
    await h.app?.close();
    await h.fake?.close();
  });
  return h;
}
