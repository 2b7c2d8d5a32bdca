/** Where a notification job is. */
export const JOB_STATES = [
  'queued',
  'waiting',
  'sending',
  'sent',
  'dead',
  'collapsed',
  'cancelled',
] as const;
export type JobState = (typeof JOB_STATES)[number];

/** Why a job was dead-lettered. */
export const DEAD_REASONS = [
  'deadline',
  'max_attempts',
  'forbidden',
  'revoked',
  'ambiguous_timeout',
  'rejected',
] as const;
export type DeadReason = (typeof DEAD_REASONS)[number];

export const PRIORITIES = ['high', 'normal', 'low'] as const;
export type Priority = (typeof PRIORITIES)[number];

/** A job as accepted by `POST /v1/notifications` (validated, times in epoch ms). */
export interface NewJob {
  id: string;
  /** Numeric chat id as a string (the lane key and the buckets use it as is). */
  chatId: string;
  method: string;
  /** Bot API parameters besides `chat_id`. */
  payload: Record<string, unknown>;
  scope: string;
  /** Internal jobs (builtin replies) go out through this bot only. */
  pinnedBot?: string;
  priority: Priority;
  deadline: number;
  notBefore: number;
  collapseKey?: string;
}

/** A job as the queue stores it. */
export interface Job extends NewJob {
  state: JobState;
  /** Failed attempts (5xx, network); a 429 is not one. */
  attempts: number;
  createdAt: number;
  /** The bot that sent it (or tried last). */
  bot?: string;
  messageId?: number;
  reason?: DeadReason;
  /** Last error, short, never with a token. */
  lastError?: string;
  /** Epoch ms the job waits for (cooldown, backoff, not_before). */
  waitUntil?: number;
  /** The job that replaced this one (collapse_key). */
  collapsedBy?: string;
  finishedAt?: number;
}

/** The lane a job waits in: its chat, within its scope (or its pinned bot). */
export function laneOf(j: Pick<NewJob, 'scope' | 'chatId' | 'pinnedBot'>): string {
  return `${j.pinnedBot ? `bot=${j.pinnedBot}` : j.scope}|${j.chatId}`;
}

/** Private chats have positive ids; groups, supergroups and channels negative ones. */
export type ChatKind = 'private' | 'group';
export function chatKind(chatId: string): ChatKind {
  return chatId.startsWith('-') ? 'group' : 'private';
}

/** Bot registry state of one bot, shared by every worker. */
export type BotState = 'active' | 'cooldown' | 'disabled' | 'revoked';

export interface BotStatus {
  state: BotState;
  /** Epoch ms the cooldown ends (state cooldown). */
  until?: number;
  reason?: string;
  /** Token generation: bumped by a rotation; workers reload the token when it moves. */
  gen: number;
  /** Rotation in progress: no new sends are assigned to the bot. */
  rotating: boolean;
}
