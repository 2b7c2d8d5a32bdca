import { execFile, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_MODEL_NAME } from '../../src/inference/local/local-model.backend.js';
import { ADAPTERS, RunningApp, startApp } from '../support/app.js';
import { testApps } from '../support/signature-routes.js';

const run = promisify(execFile);
const SCRIPT = 'examples/python/check_signing.py';
const FIXTURE = 'test/fixtures/signature-worked-example.json';
/** Compiles a file without running it or writing __pycache__. */
const COMPILE = 'import sys; compile(open(sys.argv[1]).read(), sys.argv[1], "exec")';
const PY_ENV = { ...process.env, PYTHONDONTWRITEBYTECODE: '1' };

/** The first Python that has httpx (RAMPART_PYTHON, python3, Debian's /usr/bin/python3), if any. */
function pythonWithHttpx(): string | undefined {
  const candidates = [process.env.RAMPART_PYTHON, 'python3', '/usr/bin/python3'];
  return candidates.find(
    (py) => py && spawnSync(py, ['-c', 'import httpx'], { stdio: 'ignore' }).status === 0,
  );
}

const python = pythonWithHttpx();
// CI (.ci/run) installs python3-httpx: there the check must run; elsewhere it is skipped without httpx.
const runs = python !== undefined || process.env.CI !== undefined;

interface CheckResult {
  worked_example: boolean;
  completion: { status: number; model: string; content: string };
  stream: { status: number; content_type: string; done: boolean; usage: unknown; content: string };
  models: { status: number; ids: string[] };
  unauthorized: { status: number; code: string; type: string };
  fresh_nonces: boolean;
  passed: boolean;
}

/**
 * The Python example's RampartAuth (an httpx.Auth) signing real requests to a
 * started app: examples/python/check_signing.py. The `openai` Python package
 * itself cannot be installed here (no PyPI), so it is not part of this test.
 */
describe.skipIf(!runs).each(ADAPTERS)('the Python RampartAuth example (%s)', (adapter) => {
  const apps = testApps();
  let app: RunningApp;

  beforeAll(async () => {
    app = await startApp({ HTTP_ADAPTER: adapter, APPS_FILE: apps.file }, { search: 'empty' });
  });
  afterAll(() => app?.close());

  it('should sign a completion, a stream and a model list, and get a 401 with a wrong secret', async () => {
    expect(python, 'no Python with httpx: .ci/run installs python3-httpx').toBeDefined();
    const { stdout } = await run(python!, [SCRIPT, app.url, '--fixture', FIXTURE], {
      env: {
        ...PY_ENV,
        RAMPART_APP_ID: apps.main.appId,
        RAMPART_APP_SECRET: apps.main.secrets[0],
        RAMPART_KEY_ID: 'k1',
      },
      timeout: 60_000,
    }).catch((err: { stdout?: string; stderr?: string }) => {
      throw new Error(`check_signing.py failed: ${err.stdout ?? ''}${err.stderr ?? ''}`);
    });
    const r = JSON.parse(stdout) as CheckResult;
    expect(r.worked_example).toBe(true);
    expect(r.completion).toMatchObject({ status: 200, model: LOCAL_MODEL_NAME });
    expect(r.completion.content).toContain('tone is positive');
    expect(r.stream).toMatchObject({ status: 200, done: true });
    expect(r.stream.content_type).toMatch(/^text\/event-stream/);
    expect(r.stream.content).toBe(r.completion.content);
    expect(r.stream.usage).toMatchObject({ completion_tokens: expect.any(Number) });
    expect(r.models).toEqual({ status: 200, ids: [LOCAL_MODEL_NAME] });
    expect(r.unauthorized).toEqual({
      status: 401,
      code: 'bad_signature',
      type: 'authentication_error',
    });
    expect(r.fresh_nonces).toBe(true);
    expect(r.passed).toBe(true);
  });

  it('should at least compile the openai-package client, which cannot run here', async () => {
    // Syntax only: the `openai` package is not installable on this machine (no PyPI access).
    await expect(
      run(python!, ['-c', COMPILE, 'examples/python/openai_client.py'], { env: PY_ENV }),
    ).resolves.toBeDefined();
  });
});
