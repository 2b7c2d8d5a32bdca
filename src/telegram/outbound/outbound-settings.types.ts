import type { CallbackSettings } from './callbacks/callback.settings.js';

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
