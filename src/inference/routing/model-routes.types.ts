/** One OpenAI-compatible upstream of a model alias (CONFIG_FILE `inference.models.<alias>.upstreams[]`). */
export interface UpstreamRoute {
  /** Operator's name, unique across all aliases ([a-z0-9-], ≤ 32); never shown to callers. */
  name: string;
  /** Base URL of the upstream's OpenAI API, e.g. `https://api.openai.com/v1`. */
  url: string;
  /** The model name sent upstream in place of the alias. */
  model: string;
  /** Share of the traffic among upstreams of the same priority (positive integer, default 1). */
  weight: number;
  /** Lower goes first; higher priorities are only tried when every lower one was skipped or failed (default 0). */
  priority: number;
  /** Bearer token sent upstream, read at boot from the variable `apiKeyEnv`. Secret. */
  apiKey?: string;
  /** Milliseconds one attempt may take before the call falls over: the upstream's breaker timeout (a JSON answer, or a stream's first byte) and its gap between chunks (default 10000). */
  timeoutMs: number;
  /** Calls in flight at most (the upstream's bulkhead; default: the inference breaker's capacity). */
  capacity?: number;
  /** Name of the upstream's circuit breaker (and of its derived policy): `inference-upstream-<name>`. */
  backend: string;
}

/** Model aliases and their upstreams, in the order written. */
export type ModelRoutes = ReadonlyMap<string, readonly UpstreamRoute[]>;

/** Why a call moved on from one upstream to the next (the `reason` label of the fallback counter). */
export type FallbackReason =
  'rate_limited' | 'cooling_down' | 'circuit_open' | 'busy' | 'failed' | 'timeout';

/** Policy (and breaker backend) name of an upstream. */
export const upstreamBackend = (name: string): string => `inference-upstream-${name}`;
