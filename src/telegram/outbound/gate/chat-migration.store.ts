import { BoundedMap } from '../../../common/bounded-map.js';
import type { Clock } from '../../../common/clock.js';

/**
 * Chats that moved: Telegram answered 400 with `parameters.migrate_to_chat_id` (a basic group upgraded to a
 * supergroup gets a new id; the old one takes no more messages). The sender keeps `old → new` so the job
 * that got the answer, the chat's later jobs and new jobs for the old id are sent to the new id.
 *
 * Scoped per app (the job's namespace, job-namespace.ts): an app learns a move only from its own sends,
 * and no app can read, set or clear another's (the new id is a chat id the other app may not know).
 */
export interface ChatMigrationStore {
  /** The id `chatId` moved to for `app`, or undefined. */
  get(app: string, chatId: string): Promise<string | undefined>;
  /** `chatId` moved to `to` for `app`, remembered for `ttlMs` milliseconds. */
  set(app: string, chatId: string, to: string, ttlMs: number): Promise<void>;
}

/** Injection token of the ChatMigrationStore. */
export const CHAT_MIGRATION_STORE = Symbol('CHAT_MIGRATION_STORE');

/** How long a move is remembered (a chat migrates once; its old id stays dead). */
export const MIGRATION_TTL_MS = 90 * 24 * 3600_000;

/**
 * Only a basic group migrates (to a supergroup, whose id is `-100…`): a private chat (positive id), a
 * supergroup or a channel never does, so only jobs for a basic group's id look the move up (a Redis call).
 */
export function canMigrate(chatId: string): boolean {
  return chatId.startsWith('-') && !chatId.startsWith('-100');
}

/**
 * Moves in this process's memory (the embedded default), bounded (`telegram.outbound.memoryChatEntries`):
 * lapsed entries go first, then the oldest. A dropped one costs one more 400, which puts it back.
 */
export class MemoryChatMigrationStore implements ChatMigrationStore {
  private readonly moves: BoundedMap<string, { to: string; until: number }>;

  constructor(
    private readonly clock: Clock,
    maxEntries: number,
  ) {
    this.moves = new BoundedMap({
      store: 'telegram_chat_migrations',
      maxEntries,
      whenFull: 'evict-oldest',
      expired: (v, now) => v.until <= now,
    });
  }

  get(app: string, chatId: string): Promise<string | undefined> {
    const m = this.moves.get(`${app}|${chatId}`);
    return Promise.resolve(m && m.until > this.clock.now() ? m.to : undefined);
  }

  set(app: string, chatId: string, to: string, ttlMs: number): Promise<void> {
    const now = this.clock.now();
    this.moves.set(`${app}|${chatId}`, { to, until: now + ttlMs }, now);
    return Promise.resolve();
  }
}

/** The id a job of `app` (its namespace; '' for internal jobs) for `chatId` is sent to now. */
export async function currentChat(
  store: ChatMigrationStore,
  app: string,
  chatId: string,
): Promise<string> {
  return canMigrate(chatId) ? ((await store.get(app, chatId)) ?? chatId) : chatId;
}

/**
 * Jobs for a chat known to have moved (for the job's app) are queued under the new id, in its lane: with the
 * jobs the app posts to the new id, in posting order. Looked up once per app × basic-group chat of the batch.
 */
export async function movedJobs<J extends { id: string; chatId: string }>(
  store: ChatMigrationStore,
  appOf: (jobId: string) => string,
  jobs: J[],
): Promise<J[]> {
  const seen = new Map<string, string>();
  const out: J[] = [];
  for (const j of jobs) {
    if (!canMigrate(j.chatId)) {
      out.push(j);
      continue;
    }
    const app = appOf(j.id);
    const k = `${app}|${j.chatId}`;
    if (!seen.has(k)) seen.set(k, await currentChat(store, app, j.chatId));
    out.push({ ...j, chatId: seen.get(k)! });
  }
  return out;
}
