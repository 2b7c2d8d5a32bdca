import type { LockSlice } from '../../config/policy.types.js';
import type { RateLimitSlice } from './core/rate-limit-slice.types.js';

/**
 * Shipped rateLimit slices per route policy (CONFIG_FILE and the admin API
 * override them). Rates are tokens per second or `<n>/<unit>`; capacity is
 * the burst. Options: see RateLimitSlice in rate-limit.types.ts.
 */
const SLICES: Record<string, RateLimitSlice> = {
  // Per client address and global; a busy service degrades (search answers from cache) before it rejects.
  search: {
    mode: 'enforce',
    failMode: 'local',
    cost: 1,
    rules: [
      { name: 'per-ip', dimension: 'ip', capacity: 60, rate: '10/s' },
      { name: 'global', dimension: 'global', capacity: 4000, rate: '2000/s' },
    ],
    degrade: { at: 0.8, factor: 1 },
    // Service-wide degrade order (docs/quotas.md): non-core, cacheable: answered from caches at load soft.
    degradeRank: 1,
  },
  'search-item': {
    mode: 'enforce',
    degradeRank: 1,
    failMode: 'local',
    rules: [
      { name: 'per-ip', dimension: 'ip', capacity: 120, rate: '20/s' },
      { name: 'global', dimension: 'global', capacity: 8000, rate: '4000/s' },
    ],
  },
  // Per app, per user and global; cost by max_tokens bands (1, 2, 4, 8); the pro tier gets 5×.
  inference: {
    mode: 'enforce',
    failMode: 'local',
    cost: 'inference',
    // Token budgets size a request by its prompt's tokens + max_tokens (the inference module's token counter).
    tokens: 'inference',
    tiers: { free: 1, pro: 5 },
    rules: [
      { name: 'per-app', dimension: 'app', capacity: 120, rate: '20/s' },
      {
        name: 'per-user',
        dimension: 'user',
        capacity: 30,
        rate: '60/min',
        penalty: { threshold: 5, factor: 0.5, decay: '1m' },
      },
      { name: 'global', dimension: 'global', capacity: 1000, rate: '200/s' },
      // Requests in flight (docs/rate-limit.md#concurrency): no app holds the whole inference bulkhead (128)
      // with slow streams, no user more than a few; a slot is back when the answer ends, at the latest after the
      // lease (above the longest stream, INFERENCE_STREAM_MAX_DURATION_MS).
      {
        name: 'app-concurrent',
        dimension: 'app',
        algorithm: 'concurrency',
        capacity: 64,
        lease: '10m',
      },
      {
        name: 'user-concurrent',
        dimension: 'user',
        algorithm: 'concurrency',
        capacity: 4,
        lease: '10m',
      },
      // Token budgets (docs/rate-limit.md#token-rules): each request reserves its prompt's tokens + max_tokens at
      // admission, and is settled to the upstream's usage when its answer ends; never overshot under concurrency.
      {
        name: 'user-tokens',
        dimension: 'user',
        algorithm: 'tokens',
        capacity: 40_000,
        window: '1m',
      },
      {
        name: 'app-tokens-day',
        dimension: 'app',
        algorithm: 'tokens',
        capacity: 5_000_000,
        window: '1d',
      },
    ],
    degrade: { at: 0.8, factor: 0.5 },
    // Expensive work gives way first: reduced quotas at load soft.
    degradeRank: 2,
  },
  // GET /v1/models: answered from the shield's cache almost always; a per-app and a global cap.
  models: {
    mode: 'enforce',
    degradeRank: 1,
    failMode: 'local',
    cost: 1,
    rules: [
      { name: 'per-app', dimension: 'app', capacity: 30, rate: '1/s' },
      { name: 'global', dimension: 'global', capacity: 500, rate: '100/s' },
    ],
  },
  // Critical: exempt from global shedding; per client address only. Fails open so operators are never locked out.
  admin: {
    mode: 'enforce',
    failMode: 'open',
    rules: [{ name: 'per-ip', dimension: 'ip', capacity: 60, rate: '2/s' }],
  },
  // Minting session keys (called by an app's own server, once per user every few minutes): per app.
  'session-keys': {
    mode: 'enforce',
    failMode: 'local',
    rules: [{ name: 'per-app', dimension: 'app', capacity: 200, rate: '50/s' }],
  },
  // Telegram webhooks (docs/telegram.md#limits). Verified updates: global (admins exempt), per chat
  // for groups, per user, and per user for the expensive commands, each update costing its command's
  // tokens (`cost: telegram`: /help 1, /search 2, /ask 5). A limited update is flagged (the product
  // answers 200 and tells the user once), a redelivered update_id is a duplicate (claim `update`).
  // Unverified requests (lock 1 defers its 401) meet only the per-IP rule, and get 429 past it.
  telegram: {
    mode: 'enforce',
    failMode: 'local',
    cost: 'telegram',
    onLimit: 'flag',
    claim: 'update',
    // At load soft /search answers from caches and /ask gets a reduced quota; the bots' admins are never shed.
    degradeRank: 1,
    criticalWhen: { role: ['admin'] },
    rules: [
      {
        name: 'global',
        dimension: 'global',
        capacity: 2000,
        rate: '2000/min',
        when: { verified: ['yes'] },
        unless: { role: ['admin'] },
      },
      {
        name: 'webhook-ip',
        dimension: 'ip',
        capacity: 120,
        rate: '120/min',
        when: { verified: ['no'] },
        // An exact ceiling: failed secret tokens raise the address's score, they do not move this limit.
        risk: false,
      },
      {
        name: 'chat',
        dimension: 'chat',
        capacity: 80,
        rate: '8/s',
        when: { chatType: ['group', 'supergroup'] },
      },
      {
        name: 'user',
        dimension: 'user',
        capacity: 20,
        rate: '2/s',
        penalty: { threshold: 5, factor: 0.5, decay: '1m' },
      },
      {
        name: 'search',
        dimension: 'user',
        capacity: 12,
        rate: '12/min',
        when: { command: ['/search'] },
      },
      {
        name: 'ask',
        dimension: 'user',
        capacity: 15,
        rate: '15/min',
        when: { command: ['/ask'] },
        degradeRank: 2,
      },
    ],
  },
  // Outbound Telegram notifications: per app, one token per job (cost function `notifications`; a batch
  // of at most 100 jobs fits the burst).
  notifications: {
    mode: 'enforce',
    failMode: 'local',
    cost: 'notifications',
    rules: [{ name: 'per-app', dimension: 'app', capacity: 300, rate: '100/s' }],
  },
};

export const RATE_LIMIT_DEFAULTS: Record<string, LockSlice> = SLICES;
