import { randomBytes } from 'node:crypto';
import { hmacSha256 } from '../locks/signature/hmac/canonical.js';
import { contentDigest } from '../locks/signature/rfc9421/content-digest.js';
import { signatureBase } from '../locks/signature/rfc9421/rfc9421-base.js';
import { serializeBareItem } from '../locks/signature/rfc9421/structured-fields-serialize.js';
import {
  bodyBytes,
  type SignatureHeaderValues,
  type SignRequestOptions,
  wireTarget,
} from './sign-request.js';

/** The label of the signature in Signature-Input / Signature. */
const LABEL = 'sig1';

/**
 * Signs one request the RFC 9421 way (HTTP Message Signatures, `hmac-sha256`,
 * as docs/signature.md describes): covers `@method`, `@path`, `@query` when
 * there is a query and `content-digest` (RFC 9530 sha-256, added) when there
 * is a body; parameters `created` (seconds), `keyid` (`<appId>` or
 * `<appId>:<keyId>`), `alg` and a fresh `nonce`. Returns the headers to add
 * (`content-digest`, `signature-input`, `signature`). The signature base is
 * the server's own code.
 */
export function signRequestRfc9421(o: SignRequestOptions): SignatureHeaderValues {
  const target = wireTarget(o.url);
  const body = bodyBytes(o.body);
  const headers: SignatureHeaderValues = {};
  const components = ['@method', '@path'];
  if (target.includes('?')) components.push('@query');
  if (body !== undefined && body.length > 0) {
    headers['content-digest'] = contentDigest(body);
    components.push('content-digest');
  }
  const created = Math.floor(Number(o.timestamp ?? Date.now()) / 1000);
  const keyid = o.keyId === undefined ? o.appId : `${o.appId}:${o.keyId}`;
  const nonce = o.nonce ?? randomBytes(16).toString('base64url');
  const params =
    `(${components.map((c) => serializeBareItem(c)).join(' ')})` +
    `;created=${created};keyid=${serializeBareItem(keyid)};alg="hmac-sha256"` +
    `;nonce=${serializeBareItem(nonce)}`;
  const built = signatureBase(components, params, {
    method: o.method,
    target,
    headers,
    scheme: 'http',
  });
  // Every component is derived from the request or set just above: none can be missing.
  if ('missing' in built) throw new Error(`RFC 9421 signing: "${built.missing}" is missing`);
  headers['signature-input'] = `${LABEL}=${params}`;
  headers.signature = `${LABEL}=:${hmacSha256(o.secret, built.base).toString('base64')}:`;
  return headers;
}
