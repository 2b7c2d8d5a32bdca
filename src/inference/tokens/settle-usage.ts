import type { TokenReservation, TokenUse } from '../../http/request-state.js';
import { InferenceError } from '../inference.errors.js';
import type { UsageMeter } from './usage-meter.js';

/**
 * What one call is charged against its token reservation (docs/inference.md#token-budgets):
 * - the upstream's `usage` when it reported one, exactly (explicit zeros too);
 * - else, when an answer came (a JSON answer, or a stream that started): the prompt's admission count plus the
 *   answer's tokens as counted (a client abort: what the upstream sent until it stopped, read after the abort too);
 * - else, a call the client left or that timed out (the upstream had the prompt): the prompt's count;
 * - else (the upstream answered an error, or was never reached): nothing.
 */
export function usedTokens(
  r: TokenReservation,
  meter: UsageMeter,
  answered: boolean,
  err: unknown,
): TokenUse {
  if (meter.reported) return meter.reported;
  if (answered || meter.completion > 0) return meter.used(r.reserved.prompt);
  if (err instanceof InferenceError && (err.kind === 'client_closed' || err.kind === 'timeout'))
    return { prompt: r.reserved.prompt, completion: 0 };
  return { prompt: 0, completion: 0 };
}
