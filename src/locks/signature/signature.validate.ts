import type { LockSlice } from '../../config/policy.types.js';
import type { SignedRequirement } from './signature.types.js';

const SIGNED: readonly SignedRequirement[] = ['required', 'optional'];
const KNOWN = new Set(['mode', 'override', 'signed']);

/** Problems with a signature slice (`{ mode, signed? }`, signed defaults to `required`); the chain checks `mode` and `override`. */
export function validateSignatureSlice(slice: LockSlice, path: string): string[] {
  const problems: string[] = [];
  if (slice.signed !== undefined && !SIGNED.includes(slice.signed as SignedRequirement))
    problems.push(`${path}.signed: must be one of ${SIGNED.join(', ')}`);
  for (const k of Object.keys(slice))
    if (!KNOWN.has(k))
      problems.push(`${path}.${k}: unknown option (known: mode, signed, override)`);
  return problems;
}
