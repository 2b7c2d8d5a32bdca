import type { InferenceError } from '../inference.errors.js';
import type { FallbackReason } from './model-routes.types.js';

/** Why a failed attempt falls over to the next upstream; undefined = it does not. */
export function fallbackReason(err: InferenceError): FallbackReason | undefined {
  if (err.kind === 'failed') return 'failed';
  if (err.kind === 'timeout') return 'timeout';
  if (err.kind === 'rejected' && err.getStatus() === 429) return 'rate_limited';
  return undefined;
}

/** opossum's own refusals (open, shut down): the call never started. */
export function refusedByOpossum(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === 'EOPENBREAKER' || code === 'ESHUTDOWN';
}
