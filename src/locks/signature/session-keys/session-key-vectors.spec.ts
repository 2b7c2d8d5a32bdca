import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { signRequestDetailed } from '../../../sdk/sign-request.js';
import { signRequest as browserSign } from '../../../sdk/browser/index.js';
import { createSessionKey } from './session-key-mint.js';
import { parseSessionKeyId } from './session-key-id.js';

const DIR = 'test/fixtures/session-keys';
const PYTHON = '/usr/bin/python3';

interface Vector {
  name: string;
  input: {
    app_secret: string;
    app_id: string;
    user: string;
    issued: number;
    ttl: number;
    scope: string[];
    random: string;
    method: string;
    target: string;
    body: string;
    timestamp: string;
    nonce: string;
  };
  expected: { keyId: string; secret: string; stringToSign: string; signature: string };
}

const VECTORS = JSON.parse(readFileSync(`${DIR}/vectors.json`, 'utf8')) as Vector[];

describe('session key vectors (computed by Python hmac in make-vectors.py)', () => {
  it.skipIf(!existsSync(PYTHON))('should be what the committed script prints today', () => {
    const out = execFileSync(PYTHON, [`${DIR}/make-vectors.py`], { encoding: 'utf8' });
    expect(JSON.parse(out)).toEqual(VECTORS);
  });

  it.each(VECTORS)(
    '$name: node derivation, node SDK and browser SDK agree with Python',
    async (v) => {
      const i = v.input;
      const key = createSessionKey(i.app_secret, {
        appId: i.app_id,
        user: i.user,
        ttlSeconds: i.ttl,
        scope: i.scope,
        now: i.issued * 1000 + 999,
        random: i.random,
      });
      expect(key.keyId).toBe(v.expected.keyId);
      expect(key.secret).toBe(v.expected.secret);
      expect(parseSessionKeyId(key.keyId)).toEqual({
        appId: i.app_id,
        user: i.user,
        issuedAt: i.issued,
        expiresAt: i.issued + i.ttl,
        scope: i.scope,
        random: i.random,
      });
      const common = {
        appId: i.app_id,
        secret: key.secret,
        keyId: key.keyId,
        method: i.method,
        url: `http://rampart.test${i.target}`,
        body: i.body,
        timestamp: Number(i.timestamp),
        nonce: i.nonce,
      };
      const node = signRequestDetailed(common);
      expect(node.stringToSign).toBe(v.expected.stringToSign);
      expect(node.headers['x-signature']).toBe(v.expected.signature);
      expect(await browserSign(common)).toEqual(node.headers);
    },
  );
});
