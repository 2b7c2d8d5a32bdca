import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  EMPTY_BODY_SHA256,
  bodySha256Hex,
  canonicalQuery,
  canonicalTarget,
  rfc3986Reencode,
  signatureHex,
  stringToSign,
} from './canonical.js';

interface WorkedCase {
  name: string;
  secret: string;
  inputs: {
    appId: string;
    timestamp: string;
    nonce: string;
    method: string;
    target: string;
    body: string;
  };
  expected: {
    canonicalTarget: string;
    bodySha256: string;
    stringToSign: string;
    signature: string;
  };
}
const WORKED = JSON.parse(
  readFileSync(
    new URL('../../../../test/fixtures/signature-worked-example.json', import.meta.url),
    'utf8',
  ),
) as { cases: WorkedCase[] };

describe('Rampart-HMAC-SHA256 worked example (docs/signature.md, computed independently in Python)', () => {
  it.each(WORKED.cases.map((c) => [c.name, c] as const))('should reproduce %s', (_name, c) => {
    expect(canonicalTarget(c.inputs.target)).toBe(c.expected.canonicalTarget);
    expect(bodySha256Hex(c.inputs.body)).toBe(c.expected.bodySha256);
    expect(stringToSign(c.inputs)).toBe(c.expected.stringToSign);
    expect(signatureHex(c.secret, c.inputs)).toBe(c.expected.signature);
  });
});

describe(canonicalQuery.name, () => {
  it.each([
    ['b=2&a=1&a=0', 'a=0&a=1&b=2'],
    ['a=1&a=1', 'a=1&a=1'],
    ['k&j=', 'j=&k='],
    ['q=a+b', 'q=a%2Bb'],
    ['q=a%20b', 'q=a%20b'],
    ['q=a%2bb', 'q=a%2Bb'],
    ['q=%7e%41', 'q=~A'],
    ['q=caf%C3%A9', 'q=caf%C3%A9'],
    ['q=café', 'q=caf%C3%A9'],
    ['q=100%', 'q=100%25'],
    ['q=%zz', 'q=%25zz'],
    ['a=1&&b=2&', 'a=1&b=2'],
    ['x=a=b', 'x=a%3Db'],
    ['%61=1', 'a=1'],
    ['q=*@/:', 'q=%2A%40%2F%3A'],
    ['', ''],
  ])('should canonicalise %j as %j', (raw, canonical) => {
    expect(canonicalQuery(raw)).toBe(canonical);
  });

  it('should sort by encoded name, then encoded value, keeping duplicates', () => {
    expect(canonicalQuery('b=1&a=z&a=b&A=q&a=b')).toBe('A=q&a=b&a=b&a=z&b=1');
  });
});

describe(canonicalTarget.name, () => {
  it('should keep the path exactly as sent (no decoding, no normalisation)', () => {
    expect(canonicalTarget('/v1/a//b/../%7e%2F?x=1')).toBe('/v1/a//b/../%7e%2F?x=1');
  });

  it('should add a "?" only when there is a query', () => {
    expect(canonicalTarget('/v1/x?')).toBe('/v1/x');
    expect(canonicalTarget('/v1/x?&&')).toBe('/v1/x');
    expect(canonicalTarget('/v1/x')).toBe('/v1/x');
  });
});

describe(rfc3986Reencode.name, () => {
  it('should keep unreserved characters and upper-case every escape', () => {
    expect(rfc3986Reencode('AZaz09-._~')).toBe('AZaz09-._~');
    expect(rfc3986Reencode(' !"#$&\'()*+,/:;=?@[]')).toBe(
      '%20%21%22%23%24%26%27%28%29%2A%2B%2C%2F%3A%3B%3D%3F%40%5B%5D',
    );
  });
});

describe(bodySha256Hex.name, () => {
  it('should hash the empty body to the SHA-256 of the empty string', () => {
    expect(bodySha256Hex(undefined)).toBe(EMPTY_BODY_SHA256);
    expect(bodySha256Hex(Buffer.alloc(0))).toBe(EMPTY_BODY_SHA256);
  });

  it('should hash bytes, not a re-serialisation', () => {
    expect(bodySha256Hex('{"a": 1}')).not.toBe(bodySha256Hex('{"a":1}'));
  });
});
