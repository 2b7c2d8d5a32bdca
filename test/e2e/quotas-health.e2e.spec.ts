/**
 * Shedding on the service's own health (docs/quotas.md#own-health): the test
 * process (the app runs in it) busy-waits 300 ms again and again, so the
 * event-loop delay p99 passes `eventLoopDelay.hard`; the instance's local
 * level goes to hard with reason `event_loop`, non-critical routes get 503
 * `load_shed`, /health/live and admin keep answering, and the level comes
 * back down once the loop is free.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { RampartConfig } from '../../src/config/config.types.js';
import { LoadMonitor } from '../../src/locks/rate-limit/load/load-monitor.service.js';
import { ADMIN_TOKEN, AdminClient } from '../support/admin-client.js';
import { ADAPTERS, RunningApp, startApp } from '../support/app.js';
import { uniqueEnv } from '../support/redis-env.js';

const withHealth = (c: RampartConfig): RampartConfig => ({
  ...c,
  sections: {
    ...c.sections,
    rateLimit: {
      load: { poll: '50ms', hold: '1s', eventLoopDelay: { soft: '50ms', hard: '200ms' } },
    },
  },
});

/** Blocks this process's event loop for `ms` every few ms until stopped. */
function blockLoop(ms: number): () => void {
  const timer = setInterval(() => {
    const until = performance.now() + ms;
    while (performance.now() < until); // busy-wait on purpose
  }, 20);
  return () => clearInterval(timer);
}

describe.each(ADAPTERS)('load level from the event loop (%s)', (adapter) => {
  let app: RunningApp | undefined;
  let unblock: (() => void) | undefined;
  afterEach(async () => {
    unblock?.();
    unblock = undefined;
    await app?.close();
    app = undefined;
  });

  it('should shed non-critical routes while the loop is blocked, keep live and admin, and come back', async () => {
    app = await startApp(
      { HTTP_ADAPTER: adapter, ADMIN_TOKEN, RAMPART_ENV: uniqueEnv('qhl') },
      { config: withHealth },
    );
    const monitor = app.app.get(LoadMonitor);
    const admin = new AdminClient(app);
    // Booting may stall the loop itself: wait until the level is normal and search answers.
    const searchOk = async (): Promise<void> =>
      expect((await fetch(`${app!.url}/v1/search?q=rome`)).status).toBe(200);
    await vi.waitFor(searchOk, { timeout: 20_000, interval: 100 });

    unblock = blockLoop(300);
    await vi.waitFor(
      () => expect(monitor.state).toMatchObject({ level: 'hard', reason: 'event_loop' }),
      {
        timeout: 20_000,
        interval: 50,
      },
    );
    const shed = await fetch(`${app.url}/v1/search?q=rome`);
    expect(shed.status).toBe(503);
    expect(((await shed.json()) as { error: string }).error).toBe('load_shed');
    expect((await fetch(`${app.url}/health/live`)).status).toBe(200);
    const status = await admin.get<{ load: { level: string; reason: string } }>('/admin/status');
    expect(status.status).toBe(200);
    expect(status.body.load).toMatchObject({ level: 'hard', reason: 'event_loop' });
    const metrics = await (await fetch(`${app.url}/metrics`)).text();
    expect(metrics).toMatch(/rampart_load_level 2/);
    const delay = Number(/rampart_load_event_loop_delay_seconds ([\d.e-]+)/.exec(metrics)?.[1]);
    expect(delay).toBeGreaterThan(0.05);

    unblock();
    unblock = undefined;
    await vi.waitFor(() => expect(monitor.state.level).toBe('normal'), {
      timeout: 20_000,
      interval: 50,
    });
    await vi.waitFor(searchOk, { timeout: 20_000, interval: 100 });
  });
});
