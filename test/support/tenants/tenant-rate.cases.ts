/**
 * Rate buckets and risk records: a hostile app that spends its own users' and its own app's quota, or
 * sends bad requests naming another app's user ids, changes nothing another app's users get.
 */
import { expect, it } from 'vitest';
import { PER_APP, PER_USER } from './tenant-policies.js';
import { type Tenants } from './tenant-app.js';

interface SubjectView {
  scope: string | null;
  multiplier: number;
  quotas: { rule: string; effectiveCapacity: number }[];
  firstSeen: string | null;
  signals: Record<string, { count: number }>;
}

export function rateCases(t: () => Tenants): void {
  const statuses = async (n: number, call: () => Promise<{ status: number }>) => {
    const out: number[] = [];
    for (let i = 0; i < n; i++) out.push((await call()).status);
    return out;
  };

  it("should leave another app's users their quota when a hostile app exhausts its users of the same ids", async () => {
    const { get } = t();
    for (const user of ['u-1', 'u-2'])
      expect(await statuses(PER_USER + 1, () => get('ten-x', '/tenant-test/who', user))).toEqual([
        ...Array<number>(PER_USER).fill(200),
        429,
      ]);
    for (const app of ['ten-a', 'ten-b'] as const) {
      const mine = await get(app, '/tenant-test/who', 'u-1');
      expect([mine.status, mine.body.app]).toEqual([200, app]);
    }
  });

  it('should leave another app its own per-app quota when a hostile app exhausts its own', async () => {
    const { get } = t();
    expect(await statuses(PER_APP + 2, () => get('ten-x', '/tenant-test/app'))).toEqual([
      ...Array<number>(PER_APP).fill(200),
      429,
      429,
    ]);
    expect(await statuses(PER_APP, () => get('ten-a', '/tenant-test/app'))).toEqual(
      Array<number>(PER_APP).fill(200),
    );
  });

  it("should keep a hostile app's bad requests naming a victim's user id in the hostile app's records", async () => {
    const { get, admin } = t();
    expect((await get('ten-a', '/tenant-test/who', 'u-risk')).status).toBe(200);
    // 10 × validation_failed (2 points each) on top of the new-subject weight: band ×0.5 or lower.
    expect(await statuses(10, () => get('ten-x', '/tenant-test/bad', 'u-risk'))).toEqual(
      Array<number>(10).fill(400),
    );
    const read = (app: string) =>
      admin.get<SubjectView>(`/admin/subjects/user/${app}/u-risk`).then((r) => r.body);
    // Signals are written in batches, a few milliseconds after the answer.
    await expect.poll(async () => (await read('ten-x')).signals.validation_failed?.count).toBe(10);
    const [victim, hostile] = [await read('ten-a'), await read('ten-x')];
    // The admin sees both, each with its app.
    expect([victim.scope, hostile.scope]).toEqual(['ten-a', 'ten-x']);
    expect(victim.signals.validation_failed).toBeUndefined();
    expect(victim.firstSeen).not.toBeNull();
    expect([victim.multiplier, hostile.multiplier < 1]).toEqual([1, true]);
    const perUser = (v: SubjectView) => v.quotas.find((q) => q.rule === 't-user.per-user');
    expect(perUser(victim)?.effectiveCapacity).toBe(PER_USER);
    expect(perUser(hostile)?.effectiveCapacity).toBeLessThan(PER_USER);
    // The victim's user still has its whole quota: one call spent, one left.
    expect((await get('ten-a', '/tenant-test/who', 'u-risk')).status).toBe(200);
  });
}
