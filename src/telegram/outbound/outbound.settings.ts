import { parseDuration, parseRate } from '../../locks/rate-limit/core/rate-parse.js';
import {
  CALLBACK_DEFAULTS,
  type CallbackSettings,
  callbackSettings,
} from './callbacks/callback.settings.js';

/** A send bucket: `rate` tokens per second (`"30/s"`, `"20/min"`), burst `burst` tokens. */
export interface SendBucket {
  /** Tokens per second. */
  perSecond: number;
  /** Burst, tokens (≥ 1). */
  burst: number;
}

/** A bot's send buckets: its own, per chat kind, per method. */
export interface OutboundBuckets {
  bot: SendBucket;
  private: SendBucket;
  group: SendBucket;
  /** Per bot × method; methods not named share none. */
  methods: Record<string, SendBucket>;
}

/** CONFIG_FILE `telegram.outbound`: the sender's limits, retries and queue. */
export interface OutboundSettings {
  /** Run workers inside the service (false: only `npm run worker` sends). */
  workers: boolean;
  /** Concurrent sends per worker process. */
  concurrency: number;
  /** Every bot's buckets, unless the bot has its own (`telegram.bots[].outbound.buckets`). */
  buckets: OutboundBuckets;
  /** Tokens a method takes from the bot and method buckets (media weigh more); default 1. */
  methodWeights: Record<string, number>;
  /** Failed attempts (5xx, network) before `max_attempts`. */
  maxAttempts: number;
  /** Backoff after a failed attempt: base × 2^(attempts−1), capped, with ± jitter (milliseconds). */
  backoffBaseMs: number;
  backoffMaxMs: number;
  /** Added to every cooldown after a 429: uniform in [0, jitterMs] (milliseconds). */
  cooldownJitterMs: number;
  /** A cooldown at least this long shows the bot as degraded in /health/ready (milliseconds). */
  longCooldownMs: number;
  /** Milliseconds a Bot API call may take. A timeout after the request was sent is ambiguous. */
  requestTimeoutMs: number;
  /** Ambiguous timeouts (and jobs of a crashed worker): `dead` (at most once) or `retry` (may duplicate). */
  ambiguous: 'dead' | 'retry';
  /** Milliseconds a worker holds a chat lane; a crashed worker's lanes are reclaimed after it. */
  leaseMs: number;
  /** Fewest milliseconds between two claims of a worker woken by another instance's job (and a busy worker's pause). */
  pollMs: number;
  /**
   * Milliseconds an idle worker sleeps between claims when nothing tells it of a job (the safety net behind the
   * queue's wake channel, for a lost announcement or a crashed worker's lane).
   */
  safetyPollMs: number;
  /** Default deadline of a job without one (milliseconds from acceptance). */
  defaultDeadlineMs: number;
  /** How long a finished job (and its job_id) is remembered (milliseconds; default 7 days). */
  retentionMs: number;
  /** Queue partitions (each its own hash tag, spread over a Redis Cluster). */
  partitions: number;
  /** Milliseconds registry states are cached by a worker before being read again. */
  registryRefreshMs: number;
  /**
   * Without Redis: most jobs the in-memory queue holds, queued or kept for their retention (default 100000); a
   * batch that does not fit is refused whole (503 `notifications_unavailable`).
   */
  memoryMaxJobs: number;
  /**
   * Without Redis: most per-chat entries in each map of the in-memory send gate (pacing times, chat cooldowns,
   * unreachable chats; default 100000 each); lapsed entries go first, then the oldest.
   */
  memoryChatEntries: number;
  /**
   * How far ahead (ms) a worker may reserve a send's slot in the shared buckets and wait for it: the
   * sends of every worker leave one bot interval apart instead of in bursts. 0: send now or requeue.
   */
  reserveAheadMs: number;
  /**
   * How much further (ms) a lane may reserve its slot when the bot is busy: slots up to `reserveAheadMs` +
   * `holdMs` ahead are taken at once (its place in the bot's line every worker shares), later ones spill
   * the lane to another bot or requeue it.
   */
  holdMs: number;
  /**
   * The last check before a send leaves: at most `departMax` sends of a bot leave in any `departWindowMs`
   * (Telegram's 30 per second, with a margin for the arrival jitter of a loaded machine).
   */
  departWindowMs: number;
  departMax: number;
  /** After a 429 the bot's rate is multiplied by `aimdBackoff` (0–1)… */
  aimdBackoff: number;
  /** …and grows back by this many msg/s per second once the cooldown is over, up to `buckets.bot`. */
  aimdRecoverPerSecond: number;
  /** Consecutive 5xx/network failures that take a bot out of rotation (probed back with getMe). */
  unhealthyAfter: number;
  /** Milliseconds between getMe probes of a bot out of rotation (doubling to 16 ×). */
  probeMs: number;
  /** Completion events: per app, a signed POST when a job is sent or dead. */
  callbacks: CallbackSettings;
}

export const OUTBOUND_DEFAULTS: OutboundSettings = {
  workers: true,
  concurrency: 64,
  buckets: {
    // Below Telegram's 30 per sliding second: the 31st send spaced 1000/29.5 ms apart leaves 1,017 ms
    // after the 1st. Arrival jitter is the departure window's (an answered send counts from its answer).
    bot: { perSecond: 29.5, burst: 1 },
    private: { perSecond: 0.9, burst: 1 },
    group: { perSecond: 20 / 60, burst: 1 },
    // In tokens (a send takes its method's weight): 15/s at weight 5 is 3 albums a second, Telegram's
    // ~30 messages a second (Bots FAQ) over albums of up to 10 items (Bot API sendMediaGroup).
    methods: { sendMediaGroup: { perSecond: 15, burst: 5 } },
  },
  methodWeights: { sendPhoto: 2, sendVideo: 3, sendDocument: 2, sendAudio: 2, sendMediaGroup: 5 },
  maxAttempts: 5,
  backoffBaseMs: 1_000,
  backoffMaxMs: 60_000,
  cooldownJitterMs: 500,
  longCooldownMs: 60_000,
  requestTimeoutMs: 10_000,
  ambiguous: 'dead',
  leaseMs: 30_000,
  pollMs: 50,
  safetyPollMs: 30_000,
  defaultDeadlineMs: 24 * 3600_000,
  retentionMs: 7 * 24 * 3600_000,
  partitions: 8,
  registryRefreshMs: 1_000,
  memoryMaxJobs: 100_000,
  memoryChatEntries: 100_000,
  reserveAheadMs: 250,
  holdMs: 300,
  departWindowMs: 1_010,
  departMax: 30,
  aimdBackoff: 0.7,
  aimdRecoverPerSecond: 10,
  unhealthyAfter: 5,
  probeMs: 10_000,
  callbacks: CALLBACK_DEFAULTS,
};

const MS_KEYS = [
  'backoffBaseMs',
  'backoffMaxMs',
  'cooldownJitterMs',
  'longCooldownMs',
  'requestTimeoutMs',
  'leaseMs',
  'pollMs',
  'safetyPollMs',
  'defaultDeadlineMs',
  'retentionMs',
  'registryRefreshMs',
  'reserveAheadMs',
  'holdMs',
  'departWindowMs',
  'probeMs',
] as const;

function bucket(v: unknown, at: string, p: string[]): SendBucket | undefined {
  const o = v as { rate?: unknown; burst?: unknown } | null;
  const perSecond = parseRate(o?.rate);
  const burst = o?.burst ?? 1;
  if (perSecond === undefined || !Number.isInteger(burst) || (burst as number) < 1) {
    p.push(`${at} must be { rate: "<n>/<unit>", burst?: integer ≥ 1 }`);
    return undefined;
  }
  return { perSecond, burst: burst as number };
}

/**
 * Parses a `buckets` map (`bot`, `private`, `group`, `methods`) over `base`:
 * a bucket not named keeps the base's, a method bucket is added to the base's
 * (`off`: that method's bucket goes; `methods: off`: every method bucket goes).
 */
export function parseBuckets(
  v: unknown,
  base: OutboundBuckets,
  at: string,
  p: string[],
): OutboundBuckets {
  const out = structuredClone(base);
  if (typeof v !== 'object' || v === null || Array.isArray(v)) {
    p.push(`${at} must be a map of bot, private, group, methods`);
    return out;
  }
  for (const [b, bv] of Object.entries(v as Record<string, unknown>)) {
    if (b === 'bot' || b === 'private' || b === 'group') {
      const s = bucket(bv, `${at}.${b}`, p);
      if (s) out[b] = s;
    } else if (b === 'methods' && bv === 'off') out.methods = {};
    else if (b === 'methods' && typeof bv === 'object' && bv !== null) {
      for (const [m, mv] of Object.entries(bv)) {
        if (mv === 'off') delete out.methods[m];
        else {
          const s = bucket(mv, `${at}.methods.${m}`, p);
          if (s) out.methods[m] = s;
        }
      }
    } else p.push(`${at}.${b} is not a known bucket (bot, private, group, methods)`);
  }
  return out;
}

/** Parses `telegram.outbound`; pushes every problem to `p`. */
export function outboundSettings(
  raw: unknown,
  p: string[],
  env: Record<string, string | undefined> = {},
): OutboundSettings {
  const at = 'CONFIG_FILE: telegram.outbound';
  const out = structuredClone(OUTBOUND_DEFAULTS);
  if (raw === undefined) return out;
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    p.push(`${at} must be an object`);
    return out;
  }
  for (const [k, v] of Object.entries(raw)) {
    if ((MS_KEYS as readonly string[]).includes(k)) {
      const ms = parseDuration(v);
      const zeroOk = k === 'cooldownJitterMs' || k === 'reserveAheadMs' || k === 'holdMs';
      if (v === 0 && zeroOk) out[k as (typeof MS_KEYS)[number]] = 0;
      else if (ms === undefined || (!zeroOk && ms < 1))
        p.push(`${at}.${k} must be milliseconds (or "<n><unit>")`);
      else out[k as (typeof MS_KEYS)[number]] = Math.round(ms);
    } else if (k === 'workers') {
      if (typeof v === 'boolean') out.workers = v;
      else p.push(`${at}.workers must be true or false`);
    } else if (
      k === 'concurrency' ||
      k === 'maxAttempts' ||
      k === 'partitions' ||
      k === 'departMax' ||
      k === 'unhealthyAfter'
    ) {
      if (Number.isInteger(v) && (v as number) >= 1 && (v as number) <= 1024) out[k] = v as number;
      else p.push(`${at}.${k} must be an integer 1–1024`);
    } else if (k === 'memoryMaxJobs' || k === 'memoryChatEntries') {
      if (Number.isInteger(v) && (v as number) >= 100 && (v as number) <= 50_000_000)
        out[k] = v as number;
      else p.push(`${at}.${k} must be an integer 100–50000000`);
    } else if (k === 'aimdBackoff' || k === 'aimdRecoverPerSecond') {
      const ok = typeof v === 'number' && v > 0 && (k === 'aimdRecoverPerSecond' || v < 1);
      if (ok) out[k] = v;
      else
        p.push(`${at}.${k} must be a number${k === 'aimdBackoff' ? ' between 0 and 1' : ' > 0'}`);
    } else if (k === 'ambiguous') {
      if (v === 'dead' || v === 'retry') out.ambiguous = v;
      else p.push(`${at}.ambiguous must be dead or retry`);
    } else if (k === 'buckets') {
      out.buckets = parseBuckets(v, out.buckets, `${at}.buckets`, p);
    } else if (k === 'callbacks') {
      out.callbacks = callbackSettings(v, `${at}.callbacks`, p, env);
    } else if (k === 'methodWeights' && typeof v === 'object' && v !== null) {
      for (const [m, w] of Object.entries(v as Record<string, unknown>)) {
        if (Number.isInteger(w) && (w as number) >= 1) out.methodWeights[m] = w as number;
        else p.push(`${at}.methodWeights.${m} must be an integer ≥ 1`);
      }
    } else p.push(`${at}.${k} is not a known option`);
  }
  if (out.leaseMs <= out.requestTimeoutMs)
    p.push(`${at}.leaseMs must be longer than requestTimeoutMs (a lease outlives a send)`);
  return out;
}
