import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { callbackSettings, privateAddress } from './callback.settings.js';
import { signCallback } from './callback-signature.js';

const env = { CB: 'a-callback-secret-0123456789' };
const parse = (raw: unknown) => {
  const p: string[] = [];
  return { s: callbackSettings(raw, 'cb', p, env), p };
};

describe(callbackSettings.name, () => {
  it('should take an https URL with a secret from the environment', () => {
    const { s, p } = parse({
      apps: { shop: { url: 'https://hooks.example.com/x', secretEnv: 'CB' } },
    });
    expect(p).toEqual([]);
    expect(s.apps.shop).toEqual({ url: 'https://hooks.example.com/x', secret: env.CB });
  });

  it('should refuse http, loopback and private hosts unless listed, credentials, and the unsigned namespace', () => {
    const app = (url: string) => ({ url, secretEnv: 'CB' });
    const { p } = parse({
      apps: {
        a: app('http://hooks.example.com/x'),
        b: app('https://127.0.0.1/x'),
        c: app('https://[::1]/x'),
        d: app('https://localhost/x'),
        e: app('https://10.1.2.3/x'),
        f: app('https://u:p@hooks.example.com/x'),
        '-': app('https://hooks.example.com/x'),
        g: { url: 'https://hooks.example.com/x', secretEnv: 'NOPE' },
      },
    });
    expect(p).toEqual([
      'cb.apps.a.url must be https (http only to a host of allowHosts)',
      'cb.apps.b.url names a loopback or private host (list it in allowHosts to allow it)',
      'cb.apps.c.url names a loopback or private host (list it in allowHosts to allow it)',
      'cb.apps.d.url names a loopback or private host (list it in allowHosts to allow it)',
      'cb.apps.e.url names a loopback or private host (list it in allowHosts to allow it)',
      'cb.apps.f.url must not carry credentials',
      'cb.apps.-: not an app id',
      'cb.apps.g.secretEnv must name an environment variable of at least 16 characters',
    ]);
    const allowed = parse({ allowHosts: ['127.0.0.1'], apps: { b: app('http://127.0.0.1:9/x') } });
    expect(allowed.p).toEqual([]);
  });

  it('should tell private addresses from public ones', () => {
    for (const ip of [
      '127.0.0.1',
      '10.0.0.1',
      '172.16.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '::1',
      '::ffff:127.0.0.1',
      'fd00::1',
      '0.0.0.0',
    ])
      expect(privateAddress(ip)).toBe(true);
    for (const ip of ['8.8.8.8', '172.32.0.1', '2001:4860::8888'])
      expect(privateAddress(ip)).toBe(false);
  });

  it('should sign t.body with HMAC-SHA256 over the unix seconds, Stripe style', () => {
    const v1 = createHmac('sha256', 'k').update('1700000000.{"a":1}').digest('hex');
    expect(signCallback('k', '{"a":1}', 1_700_000_000_900)).toBe(`t=1700000000,v1=${v1}`);
  });
});
