import { AnyReply, AnyRequest, rawResponse, requestState } from '../http/http-context.js';
import type { InferenceCall } from './inference-backend.js';

/**
 * The signals of one inference call: the client going away (the response
 * closes before it finished) and the circuit breaker's abort
 * (`requestState(req).signal`, when a breaker wraps the route).
 * `dispose()` stops watching the response.
 */
export function openInferenceCall(
  req: AnyRequest,
  reply: AnyReply,
): InferenceCall & { dispose(): void } {
  const res = rawResponse(reply);
  const gone = new AbortController();
  const onClose = (): void => {
    if (!res.writableFinished)
      gone.abort(new DOMException('client closed the connection', 'AbortError'));
  };
  if (res.destroyed) onClose();
  else res.once('close', onClose);
  const state = requestState(req);
  state.backendCalled = true;
  return {
    signal: state.signal ? AbortSignal.any([gone.signal, state.signal]) : gone.signal,
    clientGone: gone.signal,
    requestId: state.requestId,
    dispose: () => res.off('close', onClose),
  };
}
