import { SignatureFailure, fail } from '../signature.problems.js';
import type { SecretTokenContext, SecretTokenSource } from './secret-tokens.js';
import { verifyTelegramSecretToken } from './telegram-secret-token.js';

/**
 * Checks a request's secret-token header against the values its source
 * accepts, in constant time (current and previous are both compared).
 * Returns undefined when it matched, else why not: the header is missing or
 * ill-formed, or the request names nothing with a secret (wrong path),
 * or the value is wrong — one code, so a caller learns nothing from it.
 */
export function checkSecretToken(
  ctx: SecretTokenContext,
  source: SecretTokenSource,
): SignatureFailure | undefined {
  const accepted = source.secrets(ctx);
  // Raw value: a repeated header (an array) is refused, not reduced to its first copy.
  const given = ctx.req.headers[source.header];
  const [current = '', previous] = accepted ?? [];
  const match = verifyTelegramSecretToken(given, { current, previous });
  if (match !== false && accepted !== undefined) return undefined;
  return fail(
    given === undefined ? 'missing_header' : 'bad_secret_token',
    'secret-token',
    given === undefined
      ? `this route requires the ${source.header} header`
      : 'the secret token does not match',
  );
}
