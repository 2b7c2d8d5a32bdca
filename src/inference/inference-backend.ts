import type { ChatCompletionRequestDto } from './dto/chat-completion-request.dto.js';
import type { ChatCompletion, ModelList } from './openai.types.js';

/** Injection token of the configured InferenceBackend. */
export const INFERENCE_BACKEND = Symbol('InferenceBackend');

/** What one call carries besides the request body. */
export interface InferenceCall {
  /** Aborted when the call must stop: the client went away, or the circuit breaker gave up. */
  readonly signal: AbortSignal;
  /** Aborted only when the client went away (tells a client disconnect from a breaker abort). */
  readonly clientGone: AbortSignal;
  /** Request id, passed on to an upstream as X-Request-Id. */
  readonly requestId?: string;
  /** Who calls (the app and its tier), for the fair share of an upstream's bulkhead; absent = anonymous. */
  readonly tenant?: { id: string; tier?: string };
  /**
   * Tells the breaker around the route that no backend was called after all (every upstream
   * of a model was refused by its own breaker): its refusal is answered as is, not counted.
   */
  readonly noBackendCalled?: () => void;
  /**
   * Tells the breakers around the call that the backend has finished its work (a stream's last upstream chunk
   * received) while the answer may still be going to a slow client: its slot and latency sample end here.
   */
  readonly backendDone?: () => void;
  /**
   * Tells the breakers around the call that a stream ended early because its caller went away or the product cut it
   * (its limits), its upstream unfinished: the call says nothing about the backend (no latency sample, no slow call).
   */
  readonly callerGone?: () => void;
  /**
   * Told, once a stream the call stopped is over, how its answer was read after the stop (upstream-stop.ts):
   * `drained`, to the upstream's end; `cut`, at the drain's bound (what the upstream wrote past it is not metered).
   */
  readonly stopped?: (how: StopDrained) => void;
}

/** How a stopped stream's answer was read after the stop: to its end, or cut at the drain's bound. */
export type StopDrained = 'drained' | 'cut';

/** Where a streamed answer goes: a server-sent events response. */
export interface SseSink {
  /** Takes the reply over and sends `200` with the event-stream headers at once. */
  open(): void;
  readonly opened: boolean;
  /** Writes bytes that are already SSE-framed; waits while the client reads slowly. */
  write(data: string | Uint8Array): Promise<void>;
  /** Writes one `data: <json>` event. */
  event(data: unknown): Promise<void>;
  /** Ends the stream; resolves once everything is handed to the socket. */
  end(): Promise<void>;
}

/** A chat-completions backend: the built-in demo model or an OpenAI-compatible upstream. */
export interface InferenceBackend {
  /** `local` or `upstream`, for logs, metrics and health. */
  readonly kind: 'local' | 'upstream';
  /** One whole chat.completion. Throws an InferenceError on failure. */
  complete(body: ChatCompletionRequestDto, call: InferenceCall): Promise<ChatCompletion>;
  /**
   * Streams chat.completion.chunk events ending with `data: [DONE]` into
   * `sink`; resolves when the stream has ended. Failures before the first
   * byte throw an InferenceError (answered as problem+json); failures after
   * it end the stream with an error event, then throw.
   */
  stream(body: ChatCompletionRequestDto, call: InferenceCall, sink: SseSink): Promise<void>;
  /** The models this backend offers (`GET /v1/models`). Throws an InferenceError on failure. */
  models(call: InferenceCall): Promise<ModelList>;
  /** Readiness details; throws when the backend cannot serve. */
  health(signal: AbortSignal): Promise<Record<string, unknown>>;
  /** Releases connections and timers at shutdown. */
  close?(): Promise<void>;
}
