/**
 * A small client for the admin API in tests: bearer token, JSON in and out,
 * and a record of every response body (to scan for secrets).
 */
import { Global, Module } from '@nestjs/common';
import { CLOCK, type Clock } from '../../src/common/clock.js';
import { AppRegistry } from '../../src/locks/signature/apps/app-registry.js';
import type { RunningApp } from './app.js';

export const ADMIN_TOKEN = 'test-admin-token-0123456789abcdef';

export interface AdminResponse<T = Record<string, unknown>> {
  status: number;
  body: T;
  text: string;
  headers: Headers;
}

export class AdminClient {
  /** Every admin response body seen by this client, in order. */
  readonly bodies: string[] = [];

  /** `token` null = send no Authorization header. */
  constructor(
    readonly app: RunningApp,
    private readonly token: string | null = ADMIN_TOKEN,
  ) {}

  withToken(token: string | null): AdminClient {
    const c = new AdminClient(this.app, token);
    // Share the record so one scan covers every client of a test.
    (c as { bodies: string[] }).bodies = this.bodies;
    return c;
  }

  async call<T = Record<string, unknown>>(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<AdminResponse<T>> {
    const init: RequestInit = {
      method,
      headers: { ...(this.token ? { authorization: `Bearer ${this.token}` } : {}), ...headers },
    };
    if (body !== undefined) {
      init.body = typeof body === 'string' ? body : JSON.stringify(body);
      (init.headers as Record<string, string>)['content-type'] ??= 'application/json';
    }
    const res = await fetch(`${this.app.url}${path}`, init);
    const text = await res.text();
    this.bodies.push(text);
    let parsed: unknown = undefined;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: res.status, body: parsed as T, text, headers: res.headers };
  }

  get<T = Record<string, unknown>>(path: string): Promise<AdminResponse<T>> {
    return this.call<T>('GET', path);
  }

  /** Version of the policy set this instance runs. */
  async version(): Promise<number> {
    const r = await this.get<{ policySet: { version: number } }>('/admin/config');
    if (r.status !== 200) throw new Error(`GET /admin/config answered ${r.status}: ${r.text}`);
    return r.body.policySet.version;
  }

  /** Effective mode of a lock on a policy on this instance. */
  async effective(policy: string, lock: string): Promise<string | undefined> {
    const r = await this.get<{ policySet: { effective: Record<string, Record<string, string>> } }>(
      '/admin/config',
    );
    return r.body.policySet.effective[policy]?.[lock];
  }
}

/** Polls `check` until it returns true, or fails after `timeoutMs` with the last value seen. */
export async function eventually<T>(
  read: () => Promise<T>,
  ok: (v: T) => boolean,
  timeoutMs = 5_000,
  intervalMs = 20,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await read();
    if (ok(v)) return v;
    if (Date.now() > deadline)
      throw new Error(
        `condition not met within ${timeoutMs} ms (last value: ${JSON.stringify(v)})`,
      );
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/**
 * Provides a real, empty AppRegistry app-wide, standing in for the signature
 * module in tests that install the test locks instead of the real ones.
 */
@Global()
@Module({
  providers: [
    { provide: AppRegistry, useFactory: (clock: Clock) => new AppRegistry(clock), inject: [CLOCK] },
  ],
  exports: [AppRegistry],
})
export class AdminTestAppRegistryModule {}

/** Fetch options that let `/health/ready` show every check's details (the admin token). */
export const READY_DETAIL: RequestInit = { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } };
