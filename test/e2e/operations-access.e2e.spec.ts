/** Who may read /metrics and /docs (issue 12): a bearer token for metrics, docs switchable off. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADAPTERS, RunningApp, startApp } from '../support/app.js';

const METRICS_TOKEN = 'metrics-token-0123456789abcdef';

describe.each(ADAPTERS)('operations endpoints (%s)', (adapter) => {
  let locked: RunningApp;
  let open: RunningApp;

  beforeAll(async () => {
    locked = await startApp(
      { HTTP_ADAPTER: adapter, METRICS_TOKEN, DOCS_ENABLED: 'false' },
      { search: 'empty' },
    );
    open = await startApp({ HTTP_ADAPTER: adapter }, { search: 'empty' });
  });
  afterAll(async () => {
    await locked?.close();
    await open?.close();
  });

  it('should ask for the metrics bearer token when METRICS_TOKEN is set', async () => {
    for (const auth of [undefined, 'Bearer wrong-token-0123456789', `Basic ${METRICS_TOKEN}`]) {
      const res = await fetch(`${locked.url}/metrics`, {
        headers: auth ? { authorization: auth } : {},
      });
      expect(res.status).toBe(401);
      const text = await res.text();
      expect(text).toMatch(/"error":"metrics_unauthorized"/);
      expect(text).not.toMatch(/rampart_/);
    }
    const ok = await fetch(`${locked.url}/metrics`, {
      headers: { authorization: `Bearer ${METRICS_TOKEN}` },
    });
    expect(ok.status).toBe(200);
    expect(await ok.text()).toMatch(/rampart_http_request_duration_seconds/);
  });

  it('should serve no /docs when DOCS_ENABLED=false, and serve them by default', async () => {
    expect((await fetch(`${locked.url}/docs/openapi.json`)).status).toBe(404);
    const res = await fetch(`${open.url}/docs/openapi.json`);
    expect(res.status).toBe(200);
    expect((await fetch(`${open.url}/metrics`)).status).toBe(200);
  });
});
