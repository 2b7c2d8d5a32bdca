import { SignatureFailure, fail } from '../signature.problems.js';
import type { SignatureScheme } from '../signature.types.js';
import type { SessionKeyClaims } from './session-key-id.js';

/** The failure of a session key used on a route whose policy is not in its scope. */
export function outOfScope(
  c: SessionKeyClaims,
  policy: string,
  scheme: SignatureScheme,
): SignatureFailure {
  return fail(
    'key_out_of_scope',
    scheme,
    `this session key may call ${c.scope.join(', ')}; this route's policy is ${policy}`,
    { appId: c.appId },
  );
}
