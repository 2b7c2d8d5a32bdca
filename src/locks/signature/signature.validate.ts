import type { LockSlice } from '../../config/policy.types.js';
import type { SignedRequirement } from './signature.types.js';

const SIGNED: readonly SignedRequirement[] = ['required', 'optional'];
const KNOWN = new Set(['mode', 'override', 'signed', 'secretToken', 'onFailure']);

/**
 * Problems with a signature slice (`{ mode, signed?, secretToken? }`, signed defaults to
 * `required`); the chain checks `mode`, `override` and `onFailure`. `secretTokens`: the
 * names products registered (SignatureModule.forFeature).
 */
export function validateSignatureSlice(
  slice: LockSlice,
  path: string,
  secretTokens: readonly string[] = [],
): string[] {
  const problems: string[] = [];
  if (
    slice.secretToken !== undefined &&
    (typeof slice.secretToken !== 'string' || !secretTokens.includes(slice.secretToken))
  )
    problems.push(
      `${path}.secretToken: must name a registered secret-token source (known: ${secretTokens.join(', ') || 'none'})`,
    );
  if (slice.signed !== undefined && !SIGNED.includes(slice.signed as SignedRequirement))
    problems.push(`${path}.signed: must be one of ${SIGNED.join(', ')}`);
  for (const k of Object.keys(slice))
    if (!KNOWN.has(k))
      problems.push(
        `${path}.${k}: unknown option (known: mode, signed, secretToken, onFailure, override)`,
      );
  return problems;
}
