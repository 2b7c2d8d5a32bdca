import type { RoutePolicy } from './policy.types.js';
import type { AdminTokenHash } from './admin-tokens-file.js';

import type { HttpAdapterName } from '../http/http-adapters.js';
import type { ServerLimits } from '../http/server-limits.js';
import type { LogFormatSetting } from '../logging/log-format.js';
import type { LogLevel } from '../logging/logger.js';
export type SearchBackendName = 'sqlite' | 'postgres';

/** A host and port of one Redis Cluster seed node. */
export interface RedisNode {
  host: string;
  port: number;
}

export interface RedisConfig {
  /** Standalone Redis URL (`redis://` or `rediss://`); unset with no cluster nodes = memory stores. */
  url?: string;
  /** Redis Cluster seed nodes; wins over `url` and `sentinels` when set. */
  clusterNodes: RedisNode[];
  /** Redis Sentinels (REDIS_SENTINELS); the primary `sentinelName` is found through them. `url`, when set, gives the primary's password, user, db and TLS. */
  sentinels: RedisNode[];
  /** Name of the primary the Sentinels monitor (REDIS_SENTINEL_NAME, default `mymaster`). */
  sentinelName: string;
  /** Password of the Sentinels themselves (REDIS_SENTINEL_PASSWORD). Secret. */
  sentinelPassword?: string;
  /** Milliseconds a single command may take before it fails with a typed error. */
  commandTimeoutMs: number;
  /** Milliseconds a (re)connect attempt may take. */
  connectTimeoutMs: number;
  /** Maximum delay between reconnect attempts, in milliseconds (reconnects never stop, they back off). */
  maxReconnectDelayMs: number;
}

export interface SearchConfig {
  backend: SearchBackendName;
  /** PostgreSQL connection string, required when backend is `postgres`. Treated as a secret when printed. */
  databaseUrl?: string;
  /** SQLite file of the embedded backend. */
  sqlitePath: string;
}

export interface InferenceConfig {
  /** Base URL of an OpenAI-compatible server; unset = the built-in demo model. */
  upstreamUrl?: string;
  /** Bearer token sent to the upstream. Secret. */
  upstreamApiKey?: string;
  /** Milliseconds before an upstream call is abandoned (502/504 mapping happens in the inference module). */
  upstreamTimeoutMs: number;
  /**
   * INFERENCE_TOKEN_SAFETY_PERCENT: prompt token counts of models whose tokenizer is a guess (not OpenAI's) are
   * reserved at this percent (default 110), docs/inference.md#token-budgets.
   */
  tokenSafetyPercent: number;
  /** The deterministic answer cache (docs/inference.md#deterministic-answer-cache). */
  cache: {
    /**
     * INFERENCE_CHARGE_CACHED_TOKENS: true charges a cached answer's usage to the policy's tokens rules as if the
     * upstream had answered; false (default) gives the request's reservation back whole.
     */
    chargeTokens: boolean;
  };
  /** Streamed answers (docs/inference.md#stream-limits): the longest a stream may last and how long a client may not read. */
  stream: {
    /** INFERENCE_STREAM_MAX_DURATION_MS: milliseconds from the first byte after which a stream is ended (default 300000). */
    maxDurationMs: number;
    /** INFERENCE_STREAM_DRAIN_TIMEOUT_MS: milliseconds the client's socket may stay full (no `drain`) before it is cut off (default 30000). */
    drainTimeoutMs: number;
    /** INFERENCE_STREAM_RELAY_BYTES: bytes of an answer held for a slow client before the upstream is read no further (default 1048576). */
    relayBytes: number;
  };
}

export interface ShutdownConfig {
  /** SHUTDOWN_DELAY_MS: after the signal, milliseconds `/health/ready` answers 503 while requests are still served (load balancers notice). Default 5000. */
  delayMs: number;
  /** SHUTDOWN_TIMEOUT_MS: then milliseconds the close (requests in flight, Redis, backends) may take before the process exits anyway. Default 10000. */
  timeoutMs: number;
}

export interface RampartConfig {
  /** Deployment environment name; part of every Redis key (`rl:{<env>:<service>}:…`). */
  env: string;
  /** Service name; part of every Redis key. */
  service: string;
  port: number;
  host: string;
  httpAdapter: HttpAdapterName;
  logLevel: LogLevel;
  /**
   * LOG_FORMAT: `json` (pino lines), `pretty` (lines for people) or `auto` (pretty when stdout
   * is a terminal); the default is `auto`, `json` with NODE_ENV=production.
   */
  logFormat: LogFormatSetting;
  redis: RedisConfig;
  /** Bearer token for the admin API (actor id `env`). Secret. */
  adminToken?: string;
  /** File of hashed admin tokens (ADMIN_TOKENS_FILE, JSON or YAML list of `{ id, sha256 }`). */
  adminTokensFile?: string;
  /** Admin tokens from ADMIN_TOKENS_FILE, as SHA-256 hashes (masked when printed). */
  adminTokens: AdminTokenHash[];
  inference: InferenceConfig;
  search: SearchConfig;
  /** Key for hashing IPs and user ids in rate-limit keys (RATE_LIMIT_KEY_SECRET); unset = a random key shared through Redis. Secret. */
  rateLimitKeySecret?: string;
  /** Key of the ids the Telegram sender keeps in Redis (REDIS_DATA_KEY, ≥ 32 characters; docs/security.md#ids-in-redis). Secret. */
  redisDataSecret?: string;
  /** CIDRs of reverse proxies whose X-Forwarded-For is trusted. */
  trustedProxies: string[];
  /** Bearer token `/metrics` asks for (METRICS_TOKEN); unset = open. Secret. */
  metricsToken?: string;
  /** Serve the OpenAPI page at /docs (DOCS_ENABLED; default on, off with NODE_ENV=production). */
  docsEnabled: boolean;
  /** Origins allowed by CORS; empty = CORS off. */
  corsOrigins: string[];
  /** Largest accepted request body, in bytes. */
  bodyLimitBytes: number;
  /** Deepest accepted nesting of a JSON body (BODY_MAX_DEPTH). */
  bodyMaxDepth: number;
  /** HTTP server timeouts and connection cap (HTTP_*_TIMEOUT_MS, HTTP_MAX_CONNECTIONS). */
  server: ServerLimits;
  /** Graceful drain on SIGTERM/SIGINT (see src/health/drain.ts). */
  shutdown: ShutdownConfig;
  /** File holding API client apps and their secrets (JSON or YAML). */
  appsFile?: string;
  /** File holding route policies and other settings (JSON or YAML). */
  configFile?: string;
  /** Route policies by name (defaults merged with CONFIG_FILE). */
  policies: Record<string, RoutePolicy>;
  /** Settings of individual locks and modules, by section name, from CONFIG_FILE; each module validates its own section. */
  sections: Record<string, unknown>;
}
