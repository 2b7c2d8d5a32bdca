import type { RampartConfig } from './config.types.js';
import { bool, int, hostPorts, url, type Env, type Problems } from './env-readers.js';

/** The Redis connection: a URL, a cluster or sentinels, and the client's timeouts (milliseconds). */
export function redisSettings(env: Env, p: Problems): RampartConfig['redis'] {
  return {
    url: url(env, 'REDIS_URL', ['redis:', 'rediss:'], p),
    clusterNodes: hostPorts(env, 'REDIS_CLUSTER_NODES', p),
    sentinels: hostPorts(env, 'REDIS_SENTINELS', p),
    sentinelName: env.REDIS_SENTINEL_NAME || 'mymaster',
    sentinelPassword: env.REDIS_SENTINEL_PASSWORD || undefined,
    commandTimeoutMs: int(env, 'REDIS_COMMAND_TIMEOUT_MS', 50, p, 1, 60_000),
    connectTimeoutMs: int(env, 'REDIS_CONNECT_TIMEOUT_MS', 500, p, 1, 60_000),
    maxReconnectDelayMs: int(env, 'REDIS_MAX_RECONNECT_DELAY_MS', 2_000, p, 10, 60_000),
  };
}

/** The inference upstream, its token accounting and its streams. */
export function inferenceSettings(env: Env, p: Problems): RampartConfig['inference'] {
  return {
    upstreamUrl: url(env, 'INFERENCE_UPSTREAM_URL', ['http:', 'https:'], p),
    upstreamApiKey: env.INFERENCE_UPSTREAM_API_KEY || undefined,
    upstreamTimeoutMs: int(env, 'INFERENCE_UPSTREAM_TIMEOUT_MS', 30_000, p, 1, 600_000),
    tokenSafetyPercent: int(env, 'INFERENCE_TOKEN_SAFETY_PERCENT', 110, p, 100, 400),
    cache: { chargeTokens: bool(env, 'INFERENCE_CHARGE_CACHED_TOKENS', false, p) },
    stream: {
      maxDurationMs: int(env, 'INFERENCE_STREAM_MAX_DURATION_MS', 300_000, p, 100, 86_400_000),
      drainTimeoutMs: int(env, 'INFERENCE_STREAM_DRAIN_TIMEOUT_MS', 30_000, p, 100, 600_000),
      relayBytes: int(env, 'INFERENCE_STREAM_RELAY_BYTES', 1_048_576, p, 0, 67_108_864),
    },
  };
}

/** The HTTP server's timeouts (milliseconds) and connection cap. */
export function serverLimits(env: Env, p: Problems): RampartConfig['server'] {
  const limits = {
    headersTimeoutMs: int(env, 'HTTP_HEADERS_TIMEOUT_MS', 10_000, p, 100, 600_000),
    requestTimeoutMs: int(env, 'HTTP_REQUEST_TIMEOUT_MS', 30_000, p, 100, 3_600_000),
    bodyIdleTimeoutMs: int(env, 'HTTP_BODY_IDLE_TIMEOUT_MS', 10_000, p, 100, 600_000),
    keepAliveTimeoutMs: int(env, 'HTTP_KEEP_ALIVE_TIMEOUT_MS', 5_000, p, 100, 600_000),
    maxConnections: int(env, 'HTTP_MAX_CONNECTIONS', 10_000, p, 1, 1_000_000),
  };
  if (limits.headersTimeoutMs > limits.requestTimeoutMs) {
    p.add('HTTP_HEADERS_TIMEOUT_MS must not be greater than HTTP_REQUEST_TIMEOUT_MS');
  }
  return limits;
}
