import { CALLBACK_DEFAULTS } from './callbacks/callback.settings.js';
import type { OutboundSettings } from './outbound-settings.types.js';

/** Every `telegram.outbound` setting a config leaves out. */
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
