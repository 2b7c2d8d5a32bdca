import { createSecretKey } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ClientApp } from './apps/app.types.js';
import { parseHmacHeaders } from './hmac/hmac-headers.js';
import { parseRfc9421 } from './rfc9421/rfc9421-input.js';
import { parseDictionary } from './rfc9421/structured-fields.js';
import { SfParseError } from './rfc9421/structured-fields.types.js';
import { UNSIGNED, verifyRequest } from './verify-request.js';
import type { SignedRequestView } from './verify.types.js';

const NOW = 1_767_225_600_000;
const app: ClientApp = {
  id: 'app-1',
  tier: 'free',
  active: true,
  debug: true,
  secrets: [{ id: 'k1', key: createSecretKey(Buffer.alloc(32, 7)) }],
};
const apps = new Map([[app.id, app]]);
const OPTS = { now: NOW, defaultSkewSeconds: 180 };

function view(
  headers: Record<string, string | string[]>,
  target = '/v1/x?a=1',
  body = '',
): SignedRequestView {
  return { method: 'POST', target, headers, body: Buffer.from(body), scheme: 'http' };
}

describe(verifyRequest.name, () => {
  it('should report an unsigned request as such (the route policy decides)', () => {
    expect(verifyRequest(view({ 'content-type': 'application/json' }), apps, OPTS)).toBe(UNSIGNED);
  });

  it('should refuse a request that mixes both schemes', () => {
    expect(
      verifyRequest(
        view({ 'x-signature': 'a'.repeat(64), 'signature-input': 'sig=()' }),
        apps,
        OPTS,
      ),
    ).toMatchObject({ code: 'malformed_header', scheme: 'none' });
  });

  it('should treat any X-* header as an attempt to sign (a partial set is missing_header)', () => {
    expect(verifyRequest(view({ 'x-app-id': 'app-1' }), apps, OPTS)).toMatchObject({
      code: 'missing_header',
      scheme: 'hmac',
    });
    expect(verifyRequest(view({ 'x-key-id': 'k1' }), apps, OPTS)).toMatchObject({
      code: 'missing_header',
    });
    expect(verifyRequest(view({ signature: 'sig=:AAAA:' }), apps, OPTS)).toMatchObject({
      code: 'missing_header',
      scheme: 'rfc9421',
    });
  });

  it('should refuse repeated signature headers as malformed', () => {
    const h = {
      'x-app-id': ['app-1', 'app-2'],
      'x-timestamp': String(NOW),
      'x-nonce': 'n'.repeat(16),
      'x-signature': 'a'.repeat(64),
    };
    expect(verifyRequest(view(h), apps, OPTS)).toMatchObject({ code: 'malformed_header' });
  });
});

const headerValue = fc.oneof(
  fc.string({ maxLength: 200 }),
  fc.string({ unit: 'binary', maxLength: 80 }),
  fc.array(fc.string({ maxLength: 40 }), { maxLength: 3 }),
  fc.constantFrom(
    '',
    ' ',
    String(NOW),
    'a'.repeat(64),
    'app-1',
    'n0nce-0123456789abcd',
    'sig=:AAAA:',
    'sig=("@method");keyid="app-1";created=1;nonce="aaaaaaaaaaaaaaaa"',
  ),
);
const sfLike = fc.stringMatching(/^[a-z0-9=();:"@ ,*.\-_+/?!#\\\t]{0,120}$/);

describe('header parser fuzzing', () => {
  it('should never throw on any X-* header values, only answer a 4xx code or pass', () => {
    fc.assert(
      fc.property(
        fc.record(
          {
            'x-app-id': headerValue,
            'x-timestamp': headerValue,
            'x-nonce': headerValue,
            'x-signature': headerValue,
            'x-key-id': headerValue,
          },
          { requiredKeys: [] },
        ),
        (h) => {
          const r = verifyRequest(view(h as Record<string, string>), apps, OPTS);
          return (
            r === UNSIGNED ||
            r.ok === true ||
            [
              'missing_header',
              'malformed_header',
              'clock_skew',
              'unknown_app',
              'bad_signature',
            ].includes((r as { code: string }).code)
          );
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('should never throw on any Signature-Input / Signature / Content-Digest values', () => {
    const sfValue = fc.oneof(sfLike, headerValue);
    fc.assert(
      fc.property(
        sfValue,
        sfValue,
        sfValue,
        fc.string({ maxLength: 30 }),
        (input, sig, digest, body) => {
          const r = verifyRequest(
            view(
              {
                'signature-input': input as string,
                signature: sig as string,
                'content-digest': digest as string,
                host: 'h',
              },
              '/v1/x',
              body,
            ),
            apps,
            OPTS,
          );
          return r !== UNSIGNED && r.ok === false;
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('should never throw on structurally plausible RFC 9421 inputs', () => {
    const component = fc.constantFrom(
      '"@method"',
      '"@path"',
      '"@query"',
      '"@target-uri"',
      '"@authority"',
      '"@status"',
      '"content-digest"',
      '"host"',
      '"x-missing"',
      '"@method";req',
      'token',
      '1',
      '"A"',
    );
    const param = fc.oneof(
      fc.constantFrom(
        ';keyid="app-1"',
        ';keyid="app-1:k1"',
        ';keyid="x:y:z"',
        ';keyid=1',
        `;created=${NOW / 1000}`,
        ';created=-1',
        ';created=1.5',
        ';expires=1',
        ';nonce="n0nce-0123456789ab"',
        ';nonce=""',
        ';alg="hmac-sha256"',
        ';alg=ed25519',
        ';tag=?1',
      ),
      fc.stringMatching(/^;[a-z]{1,5}=[0-9]{1,4}$/),
    );
    const input = fc
      .tuple(fc.array(component, { maxLength: 6 }), fc.array(param, { maxLength: 6 }))
      .map(([c, p]) => `sig=(${c.join(' ')})${p.join('')}`);
    const sig = fc.oneof(
      fc.constant('sig=:' + Buffer.alloc(32).toString('base64') + ':'),
      fc.constant('sig=("x")'),
      fc.constant('other=:AAAA:'),
    );
    fc.assert(
      fc.property(input, sig, fc.constantFrom('', '{}'), (i, s, body) => {
        const r = verifyRequest(
          view(
            { 'signature-input': i, signature: s, host: 'h', 'content-digest': 'sha-256=:AAAA:' },
            '/v1/x?a=1',
            body,
          ),
          apps,
          OPTS,
        );
        return r !== UNSIGNED && r.ok === false;
      }),
      { numRuns: 3000 },
    );
  });

  it('should only ever throw SfParseError from the structured-field parser', () => {
    fc.assert(
      fc.property(sfLike, (s) => {
        try {
          parseDictionary(s);
        } catch (e) {
          return e instanceof SfParseError;
        }
        return true;
      }),
      { numRuns: 3000 },
    );
  });

  it('should validate parsed fields and never throw from the scheme parsers directly', () => {
    fc.assert(
      fc.property(headerValue, headerValue, (a, b) => {
        parseHmacHeaders({ 'x-app-id': a, 'x-timestamp': b, 'x-nonce': a, 'x-signature': b });
        parseRfc9421({ 'signature-input': a, signature: b });
        return true;
      }),
    );
  });
});
