import type { TokenReservation, TokenUse } from '../../http/request-state.js';
import { InferenceError } from '../inference.errors.js';
import type { UsageMeter } from './usage-meter.js';

/**
 * How one call's charge was settled (docs/inference.md#how-a-charge-was-settled), a label of
 * `rampart_inference_charge_total`:
 * - `usage`: the upstream's `usage`, exactly (explicit zeros too; an aborted stream whose drain reached it too);
 * - `counted`: an answer that ended whole without `usage`: the prompt's admission count plus its text counted;
 * - `abort_partial`: a stream the call stopped (client abort, cut at its limits, breaker), read after the stop to the
 *   upstream's end: the prompt plus every token the upstream sent;
 * - `abort_cut`: the same, but its read after the stop was cut at the drain's bound: what the upstream wrote past it
 *   is not metered (an under-charge);
 * - `error_partial`: a stream that started and ended without its finish, not stopped by us (the upstream failed
 *   or dropped mid-answer): the prompt plus the tokens read;
 * - `prompt_only`: no answer, the client left or the call timed out (the upstream had the prompt): the prompt;
 * - `error_refund`: the upstream answered an error or was never reached: nothing.
 */
export type ChargeHow =
  | 'usage'
  | 'counted'
  | 'abort_partial'
  | 'abort_cut'
  | 'error_partial'
  | 'prompt_only'
  | 'error_refund';

/** What one call is charged against its token reservation, and how that was decided ({@link ChargeHow}). */
export function settlementOf(
  r: TokenReservation,
  meter: UsageMeter,
  answered: boolean,
  err: unknown,
): { used: TokenUse; how: ChargeHow } {
  if (meter.reported) return { used: meter.reported, how: 'usage' };
  if (answered || meter.completion > 0) {
    const used = meter.used(r.reserved.prompt);
    if (meter.finished) return { used, how: 'counted' };
    if (meter.stop) return { used, how: meter.stop === 'drained' ? 'abort_partial' : 'abort_cut' };
    return { used, how: 'error_partial' };
  }
  if (err instanceof InferenceError && (err.kind === 'client_closed' || err.kind === 'timeout'))
    return { used: { prompt: r.reserved.prompt, completion: 0 }, how: 'prompt_only' };
  return { used: { prompt: 0, completion: 0 }, how: 'error_refund' };
}
