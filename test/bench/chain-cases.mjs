// bench:chain's set-up: the policies of the two apps and the measured variants.
import { randomBytes } from 'node:crypto';
import { ROOT, writeConfig } from './lib.mjs';

const { signRequest } = await import(`${ROOT}dist/src/sdk/index.js`);

export const APP = { id: 'bench-app', secret: randomBytes(32).toString('base64url') };
export const appsFile = writeConfig(
  { apps: [{ id: APP.id, tier: 'pro', secrets: [{ id: 'k1', secret: APP.secret }] }] },
  'apps.json',
);

const LOCKS = ['signature', 'rateLimit', 'cacheShield', 'circuitBreaker'];
const allOff = { locks: Object.fromEntries(LOCKS.map((l) => [l, { mode: 'off' }])) };
const HUGE = { capacity: 1_000_000, rate: '1000000/s' };
const rules = (...dims) => dims.map((d) => ({ name: `bench-${d}`, dimension: d, ...HUGE }));

/**
 * "on": the shipped policies (every lock they enable stays on) with the rate-limit rules
 * raised so that every measured request is allowed; whoami gets the rate limit too (per
 * app + global) so a signed request meets both guard locks; search-item is the
 * known-blocked route (per address, 1 per hour: after the first request every answer is a
 * local 429). "off": every lock of every policy off.
 */
const ON = {
  // A signed app may name its user (the inference pair below does): the user dimension and its risk record.
  rateLimit: { userHeader: 'x-user-id' },
  policies: {
    search: { locks: { rateLimit: { rules: rules('ip', 'global') } } },
    whoami: {
      locks: {
        rateLimit: { mode: 'enforce', failMode: 'local', cost: 1, rules: rules('app', 'global') },
      },
    },
    inference: { locks: { rateLimit: { rules: rules('app', 'global') } } },
    'search-item': {
      locks: {
        rateLimit: { rules: [{ name: 'blocked', dimension: 'ip', capacity: 1, rate: '1/h' }] },
      },
    },
    'bench-off': allOff,
  },
};
export const onConfig = writeConfig(ON);
/**
 * "conc": app "on" with the shipped inference policy's two concurrency rules (`app-concurrent`,
 * `user-concurrent`) added to its inference rules, their capacities raised so that nothing is refused: the
 * cost of taking a lease with the decision and giving it back when the answer ends (docs/rate-limit.md#concurrency).
 */
const CONCURRENT = [
  {
    name: 'app-concurrent',
    dimension: 'app',
    algorithm: 'concurrency',
    capacity: 1_000_000,
    lease: '10m',
  },
  {
    name: 'user-concurrent',
    dimension: 'user',
    algorithm: 'concurrency',
    capacity: 1_000_000,
    lease: '10m',
  },
];
export const concConfig = writeConfig(
  {
    ...ON,
    policies: {
      ...ON.policies,
      inference: { locks: { rateLimit: { rules: [...rules('app', 'global'), ...CONCURRENT] } } },
    },
  },
  'rampart-conc.json',
);
/**
 * "tok": app "on" with the shipped inference policy's two token budgets (`user-tokens` per minute, `app-tokens-day`
 * per day) added, raised so that nothing is refused: the cost of reserving at admission (in the same decision
 * call) and settling to the answer's usage when it ends (docs/rate-limit.md#token-rules).
 */
const TOKEN_RULES = [
  {
    name: 'user-tokens',
    dimension: 'user',
    algorithm: 'tokens',
    capacity: 1_000_000_000,
    window: '1m',
  },
  {
    name: 'app-tokens-day',
    dimension: 'app',
    algorithm: 'tokens',
    capacity: 1_000_000_000,
    window: '1d',
  },
];
export const tokConfig = writeConfig(
  {
    ...ON,
    policies: {
      ...ON.policies,
      inference: { locks: { rateLimit: { rules: [...rules('app', 'global'), ...TOKEN_RULES] } } },
    },
  },
  'rampart-tok.json',
);
export const offConfig = writeConfig({
  policies: Object.fromEntries(
    ['search', 'search-item', 'inference', 'whoami', 'models', 'bench-off'].map((p) => [p, allOff]),
  ),
});

const CHAT = JSON.stringify({
  model: 'gpt-4o-mini',
  messages: [
    { role: 'system', content: 'Be brief.' },
    { role: 'user', content: 'I loved the concert in Berlin on 14 June 2025 #music' },
  ],
  max_tokens: 64,
});
/**
 * Signed requests come from a pool signed before each measured run (`presign`), so the load
 * generator, which shares the cores with the app, spends no HMAC per request in the run; an
 * empty pool signs on the spot. Each header set is used once (fresh nonce).
 */
const pools = new WeakMap();
const signed = (method, path, body, secret = APP.secret, extra = {}) => {
  const sign = () => signRequest({ appId: APP.id, secret, method, url: path, body });
  const pool = [];
  const req = {
    method,
    path,
    body,
    headers: { ...(body ? { 'content-type': 'application/json' } : {}), ...extra },
    setupRequest: (r) => ({ ...r, headers: { ...r.headers, ...(pool.pop() ?? sign()) } }),
  };
  pools.set(req, { pool, sign });
  return [req];
};

/** Fills the pools of `requests` (signed ones only) with `n` fresh header sets each. */
export function presign(requests, n) {
  for (const r of requests) {
    const p = pools.get(r);
    if (!p) continue;
    p.pool.length = 0;
    for (let i = 0; i < n; i++) p.pool.push(p.sign());
  }
}
const get = (path) => [{ method: 'GET', path }];

/** The concurrency pair: the same signed inference of one user, on app "on" and on app "conc". */
export const WITHOUT_CONCURRENCY = 'signed inference + user, rate rules only';
export const WITH_CONCURRENCY = 'signed inference + user, + 2 concurrency rules';
const USER = { 'x-user-id': 'bench-user' };
/** The token-rule pair: the same signed inference of one user, on app "on" and on app "tok". */
export const WITH_TOKENS = 'signed inference + user, + 2 token rules';

/** [name, app ("on" | "off" | "conc" | "tok"), autocannon requests, expected status, ratio base]. */
export const VARIANTS = [
  ['bare GET /v1/time', 'on', get('/v1/time'), 200],
  ['empty guard + interceptor (floor)', 'on', get('/bench/floor'), 200],
  ['@Protect, every lock off', 'on', get('/bench/off'), 200],
  ['floor, search-sized answer', 'on', get('/bench/floor-search'), 200],
  ['floor + one Redis round trip', 'on', get('/bench/floor-redis'), 200],
  ['search from the result cache', 'on', get('/v1/search?q=paris&limit=3'), 200],
  ['signed GET /v1/whoami', 'on', signed('GET', '/v1/whoami'), 200],
  ['signed inference, demo model', 'on', signed('POST', '/v1/inference', CHAT), 200],
  ['inference, every lock off', 'off', signed('POST', '/v1/inference', CHAT), 200],
  [WITHOUT_CONCURRENCY, 'on', signed('POST', '/v1/inference', CHAT, APP.secret, USER), 200],
  [WITH_CONCURRENCY, 'conc', signed('POST', '/v1/inference', CHAT, APP.secret, USER), 200],
  [WITH_TOKENS, 'tok', signed('POST', '/v1/inference', CHAT, APP.secret, USER), 200],
  ['401 from a bare guard (reject floor)', 'on', get('/bench/reject'), 401],
  ['401 forged signature', 'on', signed('GET', '/v1/whoami', undefined, 'forged'.repeat(8)), 401],
  ['429 known-blocked', 'on', get('/v1/search/items/2988507'), 429],
  ['bloom-absent search', 'on', get('/v1/search?q=zzxqvjw&limit=3'), 200],
];
