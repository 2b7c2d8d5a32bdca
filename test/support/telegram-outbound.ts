/**
 * Helpers of the outbound sender's e2e tests: a CONFIG_FILE with bots of
 * their own tokens (files) and fast outbound settings, a signed client for
 * `/v1/notifications`, and polling.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { signRequest } from '../../src/sdk/sign-request.js';
import { addSecret } from './secret-scan.js';
import { testApps } from './signature-routes.js';

export interface OutBot {
  id: string;
  scope: string;
  token: string;
  /** The apps that may send through it (telegram.bots[].apps); undefined: every app. */
  apps?: string[];
  /** `outbound`: an outbound-only bot (no webhook settings); default builtin. */
  mode?: 'builtin' | 'outbound';
  /** The bot's own `outbound` block (telegram.bots[].outbound: its buckets). */
  outbound?: Record<string, unknown>;
}

export const token = (n: number, tag = 'A'): string =>
  `71000000${n}:AAOutbound${tag}TestToken_abcdefghijklmn`;

/** Settings that keep tests short: small timeouts, backoffs and jitter; chats not throttled to 1/s. */
export const FAST = {
  requestTimeoutMs: 1_000,
  leaseMs: 2_500,
  pollMs: 20,
  partitions: 4,
  backoffBaseMs: 40,
  backoffMaxMs: 200,
  cooldownJitterMs: 20,
  maxAttempts: 3,
  registryRefreshMs: 50,
  buckets: { private: { rate: '50/s', burst: 1 }, group: { rate: '50/s', burst: 1 } },
};

/**
 * For a test whose sends must all be delivered on a loaded machine: a Bot API call that takes longer than
 * FAST's 1 s times out, and a timeout is ambiguous (dead `ambiguous_timeout` by the default policy).
 */
export const SLOW_MACHINE = { requestTimeoutMs: 10_000, leaseMs: 15_000 };

export interface OutboundSetup {
  env: Record<string, string>;
  tokenFiles: Record<string, string>;
  app: { appId: string; secret: string };
  /** A second app of the same APPS_FILE (the tenant-isolation tests' other tenant). */
  other: { appId: string; secret: string };
}

/** A CONFIG_FILE and APPS_FILE for these bots; returns the env to start the app with. */
export function outboundSetup(
  bots: OutBot[],
  apiRoot: string,
  outbound: Record<string, unknown> = {},
  telegram: Record<string, unknown> = {},
): OutboundSetup {
  const dir = mkdtempSync(join(tmpdir(), 'rampart-tgo-'));
  const tokenFiles: Record<string, string> = {};
  for (const b of bots) {
    addSecret(b.token, `bot token ${b.id}`);
    tokenFiles[b.id] = join(dir, `${b.id}.token`);
    writeFileSync(tokenFiles[b.id]!, `${b.token}\n`);
  }
  const config = {
    telegram: {
      apiRoot,
      webhookInfoPollMs: 0,
      ...telegram,
      outbound: { ...FAST, ...outbound },
      bots: bots.map((b) => ({
        id: b.id,
        scope: b.scope,
        tokenFile: tokenFiles[b.id],
        ...(b.mode === 'outbound'
          ? { mode: 'outbound' }
          : {
              secretTokens: ['outbound_secret_1'],
              pathSecret: 'outbound-path-secret-0123',
              mode: 'builtin',
            }),
        ...(b.apps ? { apps: b.apps } : {}),
        ...(b.outbound ? { outbound: b.outbound } : {}),
      })),
    },
  };
  const file = join(dir, 'config.json');
  writeFileSync(file, JSON.stringify(config));
  const apps = testApps();
  return {
    // A command timeout for a loaded test machine (the shipped tens of ms would turn load into 503s).
    env: { CONFIG_FILE: file, APPS_FILE: apps.file, REDIS_COMMAND_TIMEOUT_MS: '1000' },
    tokenFiles,
    app: { appId: apps.main.appId, secret: apps.main.secrets[0]! },
    other: apps.debug,
  };
}

/** Signed calls to `/v1/notifications`. */
export class Notify {
  constructor(
    private readonly base: string,
    private readonly app: { appId: string; secret: string },
  ) {}

  post(body: unknown, signed = true): Promise<Response> {
    const url = `${this.base}/v1/notifications`;
    const text = JSON.stringify(body);
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (signed)
      Object.assign(headers, signRequest({ ...this.app, method: 'POST', url, body: text }));
    return fetch(url, { method: 'POST', headers, body: text });
  }

  async cancel(id: string): Promise<{ status: number; body: Record<string, unknown> }> {
    const url = `${this.base}/v1/notifications/${encodeURIComponent(id)}`;
    const headers = signRequest({ ...this.app, method: 'DELETE', url });
    const res = await fetch(url, { method: 'DELETE', headers });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  }

  async get(id: string): Promise<{ status: number; body: Record<string, unknown> }> {
    const url = `${this.base}/v1/notifications/${encodeURIComponent(id)}`;
    const res = await fetch(url, { headers: signRequest({ ...this.app, method: 'GET', url }) });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  }

  /**
   * Waits until every job is in one of `states`; returns their views. A 503 (replay protection
   * unavailable on a loaded machine) is asked again, not taken for a state.
   */
  async settled(ids: string[], states = ['sent', 'dead', 'collapsed'], timeoutMs = 15_000) {
    const until = Date.now() + timeoutMs;
    const seen = new Map<string, Record<string, unknown>>();
    const done = (id: string) => states.includes(seen.get(id)?.state as string);
    for (;;) {
      for (const id of ids.filter((x) => !done(x))) {
        const v = await this.get(id);
        if (v.status === 200) seen.set(id, v.body);
      }
      if (ids.every(done)) return ids.map((id) => seen.get(id)!);
      if (Date.now() > until)
        throw new Error(
          `not settled: ${ids
            .filter((x) => !done(x))
            .map((x) => JSON.stringify(seen.get(x) ?? x))
            .join('\n')}`,
        );
      await new Promise((r) => setTimeout(r, 25));
    }
  }
}

let n = 0;
/** A job for a chat with a unique id; its text names it. */
export function notice(chat: number, scope: string, extra: Record<string, unknown> = {}) {
  const id = `t${process.pid}-${Date.now().toString(36)}-${++n}`;
  return {
    job_id: id,
    chat_id: chat,
    method: 'sendMessage',
    payload: { text: id },
    bot_scope: scope,
    ...extra,
  };
}

/**
 * Waits until the notifications route answers (signature, rate limit and queue up: an unknown job is
 * a 404, not a 503) — what these tests need, without waiting for the search filters to be armed.
 */
export async function ready(notify: Notify, timeoutMs = 30_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const { status, body } = await notify.get('readiness-probe');
    if (status === 404) return;
    if (Date.now() > until) throw new Error(`the app did not get ready: ${JSON.stringify(body)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
