import { describe, expect, it } from 'vitest';
import { runSignCli } from './run-sign-cli.js';

function run(
  argv: string[],
  env: Record<string, string> = {
    RAMPART_APP_ID: 'demo-app',
    RAMPART_APP_SECRET: 'demo-secret-do-not-use-in-production-0001',
  },
  files: Record<string, string> = {},
) {
  const out: string[] = [];
  const err: string[] = [];
  const code = runSignCli(argv, env, {
    out: (l) => out.push(l),
    err: (l) => err.push(l),
    readFile: (p) => {
      if (!(p in files)) throw Object.assign(new Error('nope'), { code: 'ENOENT' });
      return Buffer.from(files[p]!);
    },
  });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

describe(runSignCli.name, () => {
  it('should print the headers, the string to sign with --explain and a curl line (worked example of docs/signature.md)', () => {
    const r = run(
      [
        'POST',
        'http://localhost:3000/v1/inference?z=last&a=2&a=1&q=caf%c3%a9+au+lait&empty',
        'body.json',
        '--explain',
        '--timestamp',
        '1767225600000',
        '--nonce',
        'n0nce-5f2b9c1e7a3d4b21',
      ],
      undefined,
      {
        'body.json': '{"model":"demo","messages":[{"role":"user","content":"Hello"}]}',
      },
    );
    expect(r.code).toBe(0);
    expect(r.out).toContain(
      'x-signature: 9928b67342303b8c0b91b00234063db6e58ddcaaf5efda7d29cafd6cda26e30d',
    );
    expect(r.out).toContain(
      'demo-app\n1767225600000\nn0nce-5f2b9c1e7a3d4b21\nPOST\n/v1/inference?a=1&a=2&empty=&q=caf%C3%A9%2Bau%2Blait&z=last\ndc3c6ba073ec3808fe892a7d1d0cd0be192ef0716f5fe3211028f3c0137a2278',
    );
    expect(r.out).toMatch(
      /^curl -sS -X POST 'http:\/\/localhost:3000\/v1\/inference\?z=last&a=2&a=1&q=caf%c3%a9\+au\+lait&empty' -H 'x-app-id: demo-app' .* -H 'content-type: application\/json' --data-binary '@body.json'$/m,
    );
  });

  it('should take flags over the environment and keep extra headers for curl', () => {
    const r = run([
      'GET',
      'http://h/v1/whoami',
      '--app-id',
      'other',
      '--secret',
      'x'.repeat(32),
      '--key-id',
      'k2',
      '-H',
      "x-user-id: o'brien",
    ]);
    expect(r.code).toBe(0);
    expect(r.out).toContain('x-app-id: other');
    expect(r.out).toContain('x-key-id: k2');
    expect(r.out).toContain(`-H 'x-user-id: o'\\''brien'`);
    expect(r.out).not.toContain('string to sign');
  });

  it('should explain what is missing and exit 2', () => {
    expect(run(['GET'], {})).toMatchObject({ code: 2 });
    const r = run(['GET', '/relative'], {});
    expect(r.err).toContain('URL must be absolute');
    expect(r.err).toContain('RAMPART_APP_ID');
    expect(r.err).toContain('RAMPART_APP_SECRET');
    expect(run(['POST', 'http://h/x', 'missing.json'])).toMatchObject({
      code: 2,
      err: 'cannot read missing.json: ENOENT',
    });
    expect(run(['GET', 'http://h/x', '--timestamp', '1767225600'])).toMatchObject({ code: 2 });
    expect(run(['--help'])).toMatchObject({ code: 0 });
  });
});
