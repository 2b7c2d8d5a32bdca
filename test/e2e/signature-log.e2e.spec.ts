/**
 * A flood of forged requests does not flood the log: one `bad signature` line per app per
 * second, each carrying how many lines were left out before it; the metric counts every one.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MetricsService } from '../../src/metrics/metrics.service.js';
import { signRequest } from '../../src/sdk/index.js';
import { ADAPTERS, RunningApp, startApp } from '../support/app.js';
import { recordedLogLines } from '../support/secret-scan.js';
import { testApps } from '../support/signature-routes.js';

const BURST = 40;

describe.each(ADAPTERS)('bad signature log under a forged flood (%s)', (adapter) => {
  const apps = testApps();
  let app: RunningApp;

  beforeAll(async () => {
    app = await startApp({ HTTP_ADAPTER: adapter, APPS_FILE: apps.file }, { search: 'empty' });
  });
  afterAll(() => app?.close());

  const forged = async (reqId: string): Promise<number> => {
    const headers = signRequest({
      appId: apps.main.appId,
      secret: 'not-the-secret-of-app-e2e-0123456789',
      method: 'GET',
      url: '/v1/whoami',
    });
    const res = await fetch(`${app.url}/v1/whoami`, {
      headers: { ...headers, 'x-request-id': reqId },
    });
    await res.arrayBuffer();
    return res.status;
  };
  const lines = (prefix: string): { reqId: string; suppressed: number }[] =>
    recordedLogLines()
      .map((l) => JSON.parse(l) as { msg?: string; reqId?: string; suppressed: number })
      .filter((l) => l.msg === 'bad signature' && l.reqId?.startsWith(prefix)) as {
      reqId: string;
      suppressed: number;
    }[];

  it('should log a burst in at most one line per second, and count what it left out', async () => {
    const prefix = `burst-${adapter}-`;
    const t0 = Date.now();
    const statuses = await Promise.all(
      Array.from({ length: BURST }, (_, i) => forged(`${prefix}${i}`)),
    );
    const elapsed = Date.now() - t0;
    expect(statuses.every((s) => s === 401)).toBe(true);
    const burst = lines(prefix);
    expect(burst.length).toBeGreaterThanOrEqual(1);
    expect(burst.length).toBeLessThanOrEqual(1 + Math.ceil(elapsed / 1000));

    // A second later the next one is logged, with the count of the lines left out since the last.
    await new Promise((r) => setTimeout(r, 1_100));
    expect(await forged(`${prefix}last`)).toBe(401);
    const all = lines(prefix);
    expect(all.at(-1)?.reqId).toBe(`${prefix}last`);
    const represented = all.reduce((n, l) => n + 1 + l.suppressed, 0);
    expect(represented).toBe(BURST + 1);

    const metric = await app.app
      .get(MetricsService)
      .registry.getSingleMetricAsString('rampart_signature_failures_total');
    expect(metric).toContain(
      `rampart_signature_failures_total{code="bad_signature",scheme="hmac"} ${BURST + 1}`,
    );
  });
});
