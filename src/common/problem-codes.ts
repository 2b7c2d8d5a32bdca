/**
 * Every stable `error` code the service answers, with its status: the one
 * catalogue. `ProblemException` takes only these codes, so a code missing
 * here does not compile; test/architecture/problem-codes.spec.ts checks that
 * the source names no other, and test/docs/problem-codes.spec.ts that docs/
 * documents each of them and no other. `4xx`: the upstream's own status.
 */
export const PROBLEM_CODES = {
  // Any route: the HTTP input contract (src/http), docs/operations.md#errors
  bad_request: 400,
  missing_host: 400,
  malformed_body: 400,
  malformed_query: 400,
  malformed_path: 400,
  validation_failed: 400,
  request_timeout: 408,
  body_too_large: 413,
  uri_too_long: 414,
  unsupported_media_type: 415,
  unsupported_content_encoding: 415,
  headers_too_large: 431,
  internal_error: 500,
  // Any route: a framework error of this status without a code of its own (src/http/problem.filter.ts)
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  not_acceptable: 406,
  unprocessable: 422,
  bad_gateway: 502,
  unavailable: 503,
  gateway_timeout: 504,
  // The chain (src/chain)
  policy_missing: 503,
  invalid_policy: 400,
  // Lock 1, signature (docs/signature.md, docs/session-keys.md)
  missing_header: 401,
  malformed_header: 401,
  clock_skew: 401,
  unknown_app: 401,
  bad_signature: 401,
  replayed_nonce: 401,
  key_expired: 401,
  key_out_of_scope: 401,
  key_revoked: 401,
  bad_secret_token: 401,
  nonce_store_unavailable: 503,
  // Lock 2, rate limit (docs/rate-limit.md, docs/quotas.md)
  rate_limited: 429,
  concurrency_limit: 429,
  token_budget: 429,
  rate_limit_unavailable: 503,
  load_shed: 503,
  banned: 403,
  pacing_full: 503,
  // Lock 3, cache shield (docs/cache-shield.md)
  query_too_long: 400,
  bloom_filter_not_found: 404,
  bloom_version_not_found: 404,
  bloom_build_in_progress: 409,
  bloom_conflict: 409,
  bloom_validation_failed: 422,
  bloom_store_unavailable: 503,
  // Lock 4, circuit breaker (docs/circuit-breaker.md)
  backend_error: 502,
  circuit_open: 503,
  backend_busy: 503,
  backend_timeout: 504,
  // Health and metrics (docs/operations.md)
  not_ready: 503,
  metrics_unauthorized: 401,
  // Search (docs/search.md)
  item_not_found: 404,
  search_unavailable: 503,
  // Inference (docs/inference.md)
  upstream_rejected: '4xx',
  upstream_error: 502,
  upstream_timeout: 504,
  upstream_rate_limited: 429,
  client_closed: 499,
  // Session keys (docs/session-keys.md)
  app_signature_required: 403,
  // Telegram (docs/telegram.md, docs/telegram-outbound.md)
  bot_backend_unavailable: 502,
  invalid_notifications: 400,
  unknown_job: 404,
  job_not_cancellable: 409,
  notifications_unavailable: 503,
  // Admin API (docs/admin-api.md, docs/console.md)
  admin_unauthorized: 401,
  admin_not_configured: 503,
  admin_store_unavailable: 503,
  admin_conflict: 409,
  unknown_lock: 400,
  invalid_app: 400,
  invalid_usage_query: 400,
  lock_not_installed: 404,
  policy_not_found: 404,
  version_not_found: 404,
  app_not_found: 404,
  secret_not_found: 404,
  console_not_built: 404,
  app_exists: 409,
  too_many_secrets: 409,
  last_secret: 409,
  no_session_keys: 409,
  unknown_bot: 404,
  rotation_timeout: 409,
  token_unreadable: 422,
  invalid_ban: 400,
  ban_not_found: 404,
  too_many_bans: 409,
} as const satisfies Record<string, number | '4xx'>;

/** A stable `error` code of the service. */
export type ProblemCode = keyof typeof PROBLEM_CODES;

/** Every code of the catalogue. */
export const PROBLEM_CODE_LIST = Object.keys(PROBLEM_CODES) as ProblemCode[];

export function isProblemCode(code: string): code is ProblemCode {
  return Object.hasOwn(PROBLEM_CODES, code);
}
