import type { IncomingHttpHeaders } from 'node:http';
import { ID_PATTERN } from '../apps/app.types.js';
import { isKeyIdForm } from '../session-keys/session-key-id.js';
import { SignatureFailure, fail } from '../signature.problems.js';
import { NONCE_PATTERN } from '../verify.types.js';
import { parseDictionary } from './structured-fields.js';
import { SfBytes, SfParseError, isInnerList, type InnerList } from './structured-fields.types.js';
import { serializeInnerList } from './structured-fields-serialize.js';

/** One RFC 9421 signature of a request, chosen and checked for form. */
export interface Rfc9421Signature {
  label: string;
  /** Covered component names, in order (lower case, e.g. `@method`, `content-digest`). */
  components: string[];
  /** Canonical serialisation of the inner list: the value of the `@signature-params` line. */
  signatureParams: string;
  appId: string;
  keyId?: string;
  /** `created`, seconds since the epoch. */
  created: number;
  /** `expires`, seconds since the epoch, when given. */
  expires?: number;
  nonce: string;
  signature: Buffer;
}

const MAX_LABELS = 8;
const MAX_COMPONENTS = 32;
const COMPONENT = /^(@[a-z-]+|[a-z0-9!#$%&'*+.^_`|~-]+)$/;

function text(h: IncomingHttpHeaders, name: string): string | undefined {
  const v = h[name];
  return Array.isArray(v) ? v.join(', ') : v;
}

/**
 * Reads `Signature-Input` and `Signature`: the first label that carries a
 * `keyid` is the signature Rampart verifies (others are ignored). Checks the
 * form of its parameters (`keyid`, `created`, `nonce`, `alg`). Never throws.
 */
export function parseRfc9421(headers: IncomingHttpHeaders): Rfc9421Signature | SignatureFailure {
  const inputField = text(headers, 'signature-input');
  const sigField = text(headers, 'signature');
  if (!inputField || !sigField)
    return fail(
      'missing_header',
      'rfc9421',
      `missing ${inputField ? 'Signature' : 'Signature-Input'}`,
    );
  let inputs, sigs;
  try {
    inputs = parseDictionary(inputField);
    sigs = parseDictionary(sigField);
  } catch (e) {
    if (e instanceof SfParseError)
      return fail(
        'malformed_header',
        'rfc9421',
        `Signature-Input / Signature are not valid structured fields (${e.message})`,
      );
    throw e;
  }
  if (inputs.size > MAX_LABELS)
    return fail('malformed_header', 'rfc9421', `more than ${MAX_LABELS} signatures`);
  const chosen = [...inputs].find(([, m]) => isInnerList(m) && m.params.has('keyid'));
  if (!chosen)
    return fail(
      'malformed_header',
      'rfc9421',
      'no Signature-Input entry is an inner list with a keyid parameter',
    );
  const [label, member] = chosen as [string, InnerList];
  const sig = sigs.get(label);
  if (!sig || isInnerList(sig) || !(sig.value instanceof SfBytes))
    return fail(
      'malformed_header',
      'rfc9421',
      `Signature has no byte sequence for label "${label}"`,
    );

  const problems: string[] = [];
  const components: string[] = [];
  if (member.items.length > MAX_COMPONENTS)
    problems.push(`more than ${MAX_COMPONENTS} covered components`);
  for (const it of member.items) {
    if (typeof it.value !== 'string' || !COMPONENT.test(it.value))
      problems.push('covered components must be lower-case names as strings');
    else if (it.params.size > 0)
      problems.push(`component parameters are not supported ("${it.value}")`);
    else if (components.includes(it.value))
      problems.push(`component "${it.value}" is covered twice`);
    else components.push(it.value);
  }
  const p = member.params;
  const keyid = p.get('keyid');
  const created = p.get('created');
  const expires = p.get('expires');
  const nonce = p.get('nonce');
  const alg = p.get('alg');
  const [appId, keyId, extra] = typeof keyid === 'string' ? keyid.split(':') : [];
  if (
    typeof keyid !== 'string' ||
    !appId ||
    !ID_PATTERN.test(appId) ||
    extra !== undefined ||
    (keyId !== undefined && !isKeyIdForm(keyId))
  ) {
    problems.push(
      'keyid must be "<appId>" or "<appId>:<keyId>" (each 1-64 characters of [A-Za-z0-9_.-]; keyId may be a session key id)',
    );
  }
  if (typeof created !== 'number' || !Number.isInteger(created) || created <= 0)
    problems.push('created must be an integer (seconds since the epoch)');
  if (expires !== undefined && (typeof expires !== 'number' || !Number.isInteger(expires)))
    problems.push('expires must be an integer (seconds since the epoch)');
  if (typeof nonce !== 'string' || !NONCE_PATTERN.test(nonce))
    problems.push('nonce must be 16-64 characters of [A-Za-z0-9_-]');
  if (alg !== undefined && alg !== 'hmac-sha256') problems.push('alg must be "hmac-sha256"');
  if (problems.length > 0) return fail('malformed_header', 'rfc9421', problems.join('; '));
  const out: Rfc9421Signature = {
    label,
    components,
    signatureParams: serializeInnerList(member),
    appId: appId!,
    created: created as number,
    nonce: nonce as string,
    signature: sig.value.bytes,
  };
  if (keyId !== undefined) out.keyId = keyId;
  if (expires !== undefined) out.expires = expires as number;
  return out;
}
