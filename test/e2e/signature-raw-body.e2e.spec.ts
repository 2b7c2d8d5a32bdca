import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signRequest } from '../../src/sdk/index.js';
import { ADAPTERS, RunningApp, startApp } from '../support/app.js';
import {
  Echo,
  SignatureRoutesModule,
  testApps,
  withSignaturePolicies,
} from '../support/signature-routes.js';

const sha = (b: Uint8Array | string): string => createHash('sha256').update(b).digest('hex');

/** Bodies whose bytes a re-serialising parser would change. */
const BODIES: { type: string; body: Buffer }[] = [
  {
    type: 'application/json',
    body: Buffer.from('{ "b":1,\n  "a" : [1.0, 2e0],  "s":"caf\\u00e9 é" }'),
  },
  { type: 'application/json; charset=utf-8', body: Buffer.from('[]') },
  { type: 'application/merge-patch+json', body: Buffer.from('{"a" :null ,"é":"\u00e9"}') },
];

/** Bodies the service does not accept (JSON only, issue 12): refused with 415 before any lock. */
const REFUSED: { type: string; body: Buffer }[] = [
  { type: 'application/x-www-form-urlencoded', body: Buffer.from('b=2&a=1&a=%7e&sp=a+b&e=') },
  { type: 'text/plain', body: Buffer.from('  line one\r\nline two  \n') },
  { type: 'text/plain; charset=utf-8', body: Buffer.from('héllo') },
  { type: 'application/octet-stream', body: randomBytes(3000) },
  { type: 'image/png', body: randomBytes(64) },
];

describe.each(ADAPTERS)('raw body for signatures (%s)', (adapter) => {
  const apps = testApps();
  const creds = { appId: apps.main.appId, secret: apps.main.secrets[0]! };
  let app: RunningApp;
  let small: RunningApp;

  beforeAll(async () => {
    app = await startApp(
      { HTTP_ADAPTER: adapter, APPS_FILE: apps.file },
      { search: 'empty', imports: [SignatureRoutesModule], config: withSignaturePolicies() },
    );
    small = await startApp(
      { HTTP_ADAPTER: adapter, APPS_FILE: apps.file, BODY_LIMIT_BYTES: '2048' },
      { search: 'empty', imports: [SignatureRoutesModule], config: withSignaturePolicies() },
    );
  });
  afterAll(async () => {
    await app?.close();
    await small?.close();
  });

  it.each(BODIES.map((b) => [b.type, b] as const))(
    'should keep the exact bytes of a %s body',
    async (_t, { type, body }) => {
      const res = await fetch(`${app.url}/sig-test/raw`, {
        method: 'POST',
        headers: { 'content-type': type },
        body,
      });
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ bodySha256: sha(body), bodyLength: body.length });
    },
  );

  it.each(BODIES.map((b) => [b.type, b] as const))(
    'should verify a signed %s body',
    async (_t, { type, body }) => {
      const headers = signRequest({
        ...creds,
        method: 'POST',
        url: `${app.url}/sig-test/echo`,
        body,
      });
      const res = await fetch(`${app.url}/sig-test/echo`, {
        method: 'POST',
        headers: { ...headers, 'content-type': type },
        body,
      });
      expect(res.status).toBe(200);
      expect(((await res.json()) as Echo).app).toBe('app-e2e');
    },
  );

  it.each(REFUSED.map((b) => [b.type, b] as const))(
    'should refuse a signed %s body with 415 before the signature lock',
    async (_t, { type, body }) => {
      const headers = signRequest({
        ...creds,
        method: 'POST',
        url: `${app.url}/sig-test/echo`,
        body,
      });
      const res = await fetch(`${app.url}/sig-test/echo`, {
        method: 'POST',
        headers: { ...headers, 'content-type': type },
        body,
      });
      expect(res.status).toBe(415);
      expect(await res.json()).toMatchObject({ status: 415, error: 'unsupported_media_type' });
    },
  );

  it('should hash an absent body as the empty string', async () => {
    const res = await fetch(`${app.url}/sig-test/raw`, { method: 'POST' });
    expect(await res.json()).toMatchObject({ bodySha256: sha(''), bodyLength: 0 });
  });

  it.each(['application/json', 'application/json; charset=utf-8'])(
    'should answer 413 body_too_large above BODY_LIMIT_BYTES for %s, and accept the limit itself',
    async (type) => {
      const json = (n: number): string => `{"a":"${'a'.repeat(n - 8)}"}`;
      const at = Buffer.from(json(2048));
      expect(
        (
          await fetch(`${small.url}/sig-test/raw`, {
            method: 'POST',
            headers: { 'content-type': type },
            body: at,
          })
        ).status,
      ).toBe(200);
      const over = Buffer.from(json(2049));
      const res = await fetch(`${small.url}/sig-test/echo`, {
        method: 'POST',
        headers: { 'content-type': type },
        body: over,
      });
      expect(res.status).toBe(413);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(await res.json()).toMatchObject({ status: 413, error: 'body_too_large' });
    },
  );
});
