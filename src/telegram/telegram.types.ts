import type { GroupScaleRow } from './group-scale.js';
import type { OutboundBuckets, OutboundSettings } from './outbound/outbound.settings.js';

/**
 * What Rampart does with an allowed update: forward it, answer it (builtin),
 * or nothing: an `outbound` bot only sends and has no webhook.
 */
export const BOT_MODES = ['forward', 'builtin', 'outbound'] as const;
export type BotMode = (typeof BOT_MODES)[number];

/** How a bot's updates arrive: Telegram POSTs them (webhook), or Rampart fetches them (`getUpdates`). */
export const BOT_INGRESS = ['webhook', 'polling'] as const;
export type BotIngress = (typeof BOT_INGRESS)[number];

/** One bot from CONFIG_FILE `telegram.bots[]`, validated, with its token read. */
export interface BotConfig {
  /** `[a-z0-9-]{1,32}`: in the webhook path, the policy name `telegram-<id>` and metric labels. */
  id: string;
  /** The bot's username (without `@`): `/cmd@<username>` is this bot's command. */
  username?: string;
  /** Bot API token (from `tokenFile` or `tokenEnv`). Secret: only `fingerprint` is ever shown. */
  token: string;
  /** First 12 hex of SHA-256 of the token: tells tokens apart in logs without revealing them. */
  fingerprint: string;
  /** `[current, previous?]` secret_token values (1–256 of A-Z a-z 0-9 _ -); none on an outbound bot. */
  secretTokens?: [string, string?];
  /** Unguessable last path segment of the webhook URL (16–128 of A-Z a-z 0-9 _ -); none on an outbound bot. */
  pathSecret?: string;
  mode: BotMode;
  /**
   * `webhook` (default) or `polling`: one instance at a time fetches the bot's updates with
   * `getUpdates` and hands each to the same webhook route. A polling bot's secret token and path
   * secret, when not configured, are random per process (the route is only called by itself).
   */
  ingress: BotIngress;
  /** Forward mode: where allowed updates are POSTed (http or https URL). */
  backendUrl?: string;
  /** Tokens each command costs the limits, e.g. `{ "/ask": 5 }`; unknown commands cost 1. */
  commandCosts: Record<string, number>;
  /** Telegram user ids whose commands are exempt from global shedding. */
  adminUserIds: string[];
  /**
   * The chat-wide bucket of a group (`chat` rules) × the factor of its member count (getChatMemberCount,
   * cached): docs/telegram.md#group-size. Undefined: every group gets the rule as written.
   */
  groupScale?: GroupScaleRow[];
  /** Overrides the rate-limit failMode of this bot's policy (`telegram-<id>`). */
  failMode?: 'open' | 'closed' | 'local';
  /**
   * setWebhook's max_connections (1–100, default 40): Telegram never has more
   * deliveries in flight, so it is also the forward breaker's bulkhead.
   */
  maxConnections: number;
  /** Outbound: jobs name a scope; any active bot of it that can reach the chat may send (default `default`). */
  scope: string;
  /**
   * Outbound: the apps that may send notifications through this bot (its scope). Undefined: every app
   * (a single-tenant setup); a bot shared by tenants should name them (docs/telegram-outbound.md#tenants).
   */
  apps?: string[];
  /** Outbound: this bot's own buckets (`outbound.buckets`, over the global ones); undefined: the global ones. */
  buckets?: OutboundBuckets;
  /**
   * Outbound: the only chats this bot sends to (`outbound.chats`, group and channel ids it is a member of);
   * undefined: any chat (what it cannot reach is learnt from 403s and `my_chat_member`).
   */
  chats?: ReadonlySet<string>;
  /** Where the token was read from: a rotation reads it again (a file can change, the environment cannot). */
  tokenSource: { file: string } | { env: string };
}

/** CONFIG_FILE `telegram:` section. */
export interface TelegramSettings {
  /** Bot API base URL (default https://api.telegram.org; a local Bot API server works). */
  apiRoot: string;
  /** Milliseconds getWebhookInfo is polled in the background for /health/ready (0 = off). */
  webhookInfoPollMs: number;
  /** Milliseconds a forward to a bot backend may take before it counts as failed. */
  forwardTimeoutMs: number;
  /** Polling bots: seconds one `getUpdates` long poll waits for an update (0–50, Telegram's `timeout`). */
  pollTimeoutS: number;
  /**
   * Polling bots: milliseconds the poller's lease lives in Redis (≥ 1000). The holder renews it every
   * third of that; when an instance dies, another takes the bot over within this time.
   */
  pollLeaseMs: number;
  bots: BotConfig[];
  /** The outbound sender (`telegram.outbound`). */
  outbound: OutboundSettings;
}

/** Commands whose metrics carry their own label; any other command is `other`. */
export const KNOWN_COMMANDS = ['/start', '/help', '/search', '/ask'] as const;

/** Default costs (tokens) of the shipped commands; a bot's `commandCosts` overrides them. */
export const DEFAULT_COMMAND_COSTS: Record<string, number> = {
  '/help': 1,
  '/search': 2,
  '/ask': 5,
};
