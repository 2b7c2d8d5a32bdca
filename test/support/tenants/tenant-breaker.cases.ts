/**
 * Breakers (docs/security.md#tenant-isolation): a breaker is per backend and shared by every app by design
 * (it protects the backend, whose failures hurt everyone alike), so what must hold is that one app's own bad
 * requests, which the backend answers with client errors, never count against the backend.
 */
import { expect, it } from 'vitest';
import { BREAKER_VOLUME } from './tenant-policies.js';
import { type Tenants } from './tenant-app.js';

interface Breaker {
  name: string;
  state: string;
  stats: Record<string, number>;
}

export function breakerCases(t: () => Tenants): void {
  it("should never open a backend's breaker on one app's client errors", async () => {
    const { get, admin } = t();
    const rounds = BREAKER_VOLUME * 4;
    for (let i = 0; i < rounds; i++) {
      expect((await get('ten-x', '/tenant-test/backend/missing')).status).toBe(404);
      expect((await get('ten-x', '/tenant-test/backend/invalid')).status).toBe(400);
    }
    expect(await get('ten-a', '/tenant-test/backend/ok')).toMatchObject({
      status: 200,
      body: { ok: true },
    });
    const all = await admin.get<{ breakers: Breaker[] }>('/admin/breakers');
    const breaker = all.body.breakers.find((b) => b.name === 't-backend');
    expect(breaker?.state).toBe('closed');
    expect(breaker?.stats.failures ?? 0).toBe(0);
  });
}
