import type { LockSlice, RoutePolicy } from '../config/policy.types.js';

/** Breaker options of a bot backend (forward mode): a bot backend is an ordinary web app. */
const BOT_BACKEND_BREAKER = {
  timeoutMs: 10_000,
  errorThresholdPercentage: 50,
  volumeThreshold: 5,
  rollingCountTimeoutMs: 10_000,
  rollingCountBuckets: 10,
  resetTimeoutMs: 10_000,
  resetJitter: 0.2,
  halfOpenProbes: 1,
  rampPercents: [],
  rampMs: 0,
};

type BotSection = { id?: unknown; mode?: unknown; failMode?: unknown; maxConnections?: unknown };

/**
 * Each bot's own policy `telegram-<id>`, derived from `telegram` where
 * CONFIG_FILE does not define it: the bot's `failMode` on the rate-limit
 * slice, and in forward mode a breaker of its own (backend `telegram-<id>`).
 * The webhook route picks it by the `botId` path parameter; the admin API
 * edits it like any other policy.
 */
export function withBotPolicies(
  policies: Record<string, RoutePolicy>,
  telegramSection: unknown,
): Record<string, RoutePolicy> {
  const base = policies.telegram;
  const bots = (telegramSection as { bots?: unknown } | undefined)?.bots;
  if (!base || !Array.isArray(bots)) return policies;
  const out = { ...policies };
  for (const b of bots as BotSection[]) {
    if (typeof b !== 'object' || b === null || typeof b.id !== 'string') continue;
    const name = `telegram-${b.id}`;
    if (out[name]) continue;
    const p = structuredClone(base);
    p.description = `Telegram webhook of bot ${b.id} (derived from telegram)`;
    const rl = p.locks.rateLimit;
    if (rl && typeof b.failMode === 'string') rl.failMode = b.failMode;
    if (b.mode === 'forward') {
      // The bulkhead holds every delivery Telegram can have in flight (max_connections).
      const capacity = Number.isInteger(b.maxConnections) ? b.maxConnections : 40;
      const cb: LockSlice = { mode: 'enforce', backend: name, ...BOT_BACKEND_BREAKER, capacity };
      p.locks.circuitBreaker = cb;
    }
    out[name] = p;
  }
  return out;
}
