/**
 * Requests in flight under the shipped inference policy (docs/rate-limit.md#concurrency): a hostile app that
 * holds many streamed completions open against a slowly streaming upstream is refused past its own per-user
 * and per-app slots, and never stops another app, nor another app's user of the same id, from being answered.
 */
import { type IncomingMessage, request as httpRequest } from 'node:http';
import { afterEach, expect, it } from 'vitest';
import { signRequest } from '../../../src/sdk/index.js';
import { type AppId, type Tenants } from './tenant-app.js';

/** The shipped inference rules `app-concurrent` and `user-concurrent` (free tier ×1), not the suite's. */
const APP_SLOTS = 64;
const USER_SLOTS = 4;

interface Held {
  status: number;
  /** The answer's body, read to its end (for a refusal: the problem). */
  text(): Promise<string>;
  hangUp(): void;
}

export function concurrencyCases(t: () => Tenants): void {
  const held: Held[] = [];
  afterEach(() => {
    for (const h of held.splice(0)) h.hangUp();
    t().upstream.resumeStreams();
  });

  /** A streamed completion signed by `appId` for `user`, its body unread (a client that only reads the status). */
  const stream = (appId: AppId, user: string) =>
    new Promise<Held>((resolve, reject) => {
      const url = `${t().app.url}/v1/chat/completions`;
      const body = JSON.stringify({
        model: 'gpt-4o-mini',
        stream: true,
        max_tokens: 16,
        messages: [{ role: 'user', content: 'hold the line' }],
      });
      const sig = signRequest({ appId, secret: t().secrets[appId], method: 'POST', url, body });
      const req = httpRequest(url, {
        method: 'POST',
        agent: false,
        headers: { 'content-type': 'application/json', 'x-user-id': user, ...sig },
      });
      req.on('response', (res: IncomingMessage) => {
        const h: Held = {
          status: res.statusCode ?? 0,
          hangUp: () => req.destroy(),
          text: async () => {
            const parts: Buffer[] = [];
            for await (const p of res) parts.push(p as Buffer);
            return Buffer.concat(parts).toString('utf8');
          },
        };
        held.push(h);
        resolve(h);
      });
      req.on('error', reject);
      req.end(body);
    });

  const statuses = async (n: number, appId: AppId, user: string) => {
    const out: number[] = [];
    for (let i = 0; i < n; i++) out.push((await stream(appId, user)).status);
    return out;
  };

  /** A refusal by the concurrency rule `rule`: 429 `concurrency_limit` naming it. */
  const expectRefusedBy = async (h: Held, rule: string) => {
    expect(h.status).toBe(429);
    const problem = await h.text();
    expect(problem).toContain('concurrency_limit');
    expect(problem).toContain(rule);
  };

  // The hostile app is `ten-s`: `ten-x` is scored down by the other cases' bad requests, and a risk band
  // lowers concurrency capacities like any other (its shipped slots would not apply whole).
  it("should refuse a hostile app past its shipped slots per user and per app, and answer the other apps' users meanwhile", async () => {
    t().upstream.pauseStreams(); // every stream stays open after its first chunk
    // Per user: the hostile app's user-1 holds its slots; another app's user of the same id is answered.
    expect(await statuses(USER_SLOTS, 'ten-s', 'user-1')).toEqual(Array(USER_SLOTS).fill(200));
    await expectRefusedBy(await stream('ten-s', 'user-1'), 'user-concurrent');
    expect((await stream('ten-a', 'user-1')).status).toBe(200);
    // Per app: the hostile app fills its slots with more users, then even a fresh user of it is refused.
    for (let u = 2; u <= APP_SLOTS / USER_SLOTS; u++)
      expect(await statuses(USER_SLOTS, 'ten-s', `user-${u}`)).toEqual(Array(USER_SLOTS).fill(200));
    await expectRefusedBy(await stream('ten-s', 'user-new'), 'app-concurrent');
    // The other apps, holding nothing, are answered while the hostile app holds all it may.
    expect((await stream('ten-b', 'user-new')).status).toBe(200);
    expect((await stream('ten-a', 'user-2')).status).toBe(200);
  });
}
