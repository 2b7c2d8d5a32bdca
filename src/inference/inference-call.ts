import { AnyReply, AnyRequest, rawResponse, requestState } from '../http/http-context.js';
import type { InferenceCall } from './inference-backend.js';

/**
 * The signals of one inference call: the client going away (the response
 * closes before it finished) and the circuit breaker's abort
 * (`requestState(req).signal`, when a breaker wraps the route); `cut` (a stream cut at its limits) counts as
 * the client going away.
 * `dispose()` stops watching the response.
 */
export function openInferenceCall(
  req: AnyRequest,
  reply: AnyReply,
  cut?: AbortSignal,
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
  // A stream cut at its limits (sse-response.ts) ends the call as a client that went away does.
  const clientGone = cut ? AbortSignal.any([gone.signal, cut]) : gone.signal;
  return {
    signal: state.signal ? AbortSignal.any([clientGone, state.signal]) : clientGone,
    clientGone,
    requestId: state.requestId,
    tenant: { id: state.appId ?? '-', tier: state.tier },
    noBackendCalled: () => void (state.backendCalled = false),
    backendDone: () => state.backendDone?.(),
    callerGone: () => state.callerGone?.(),
    dispose: () => res.off('close', onClose),
  };
}
