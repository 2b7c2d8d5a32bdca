import type { DeadReason, Job, JobState, NewJob, Priority } from '../outbound.types.js';
import type { IdCipher } from '../id-cipher.js';
import type { LostLease } from './outbound-queue.store.js';

const PRIO: Record<Priority, string> = { high: 'h', normal: 'n', low: 'l' };
const FROM_PRIO: Record<string, Priority> = { h: 'high', n: 'normal', l: 'low' };

/** The 11 enqueue fields of a job (lua/telegram_queue_enqueue.lua); the chat id sealed (no raw id in Redis). */
export function jobArgs(j: NewJob, lane: string, ids: IdCipher): (string | number)[] {
  return [
    j.id,
    lane,
    ids.seal(j.chatId),
    j.method,
    JSON.stringify(j.payload),
    j.scope,
    j.pinnedBot ?? '',
    PRIO[j.priority],
    j.deadline,
    j.notBefore,
    j.collapseKey ?? '',
  ];
}

function num(v: string | undefined): number | undefined {
  return v === undefined || v === '' ? undefined : Number(v);
}

function str(v: string | undefined): string | undefined {
  return v === undefined || v === '' ? undefined : v;
}

/** A job from its hash (HGETALL as a flat list or an object). */
export function decodeJob(raw: string[] | Record<string, string>, ids: IdCipher): Job | undefined {
  let h: Record<string, string>;
  if (Array.isArray(raw)) {
    h = {};
    for (let i = 0; i + 1 < raw.length; i += 2) h[raw[i]!] = raw[i + 1]!;
  } else h = raw;
  if (h.id === undefined) return undefined;
  return {
    id: h.id,
    chatId: ids.open(h.chat!),
    method: h.method!,
    payload: JSON.parse(h.payload ?? '{}') as Record<string, unknown>,
    scope: h.scope!,
    pinnedBot: str(h.pin),
    priority: FROM_PRIO[h.prio ?? 'n'] ?? 'normal',
    deadline: Number(h.deadline),
    notBefore: Number(h.nb ?? 0),
    collapseKey: str(h.ck),
    state: h.state as JobState,
    attempts: Number(h.attempts ?? 0),
    createdAt: Number(h.created),
    bot: str(h.bot),
    messageId: num(h.mid),
    reason: str(h.reason) as DeadReason | undefined,
    lastError: str(h.err),
    waitUntil: num(h.wait),
    collapsedBy: str(h.by),
    finishedAt: num(h.finished),
  };
}

/** The `lost` field of a job hash ("<token>@<end ms>", space-separated; lua/telegram_queue_claim.lua). */
export function parseLost(v: string | undefined): LostLease[] {
  return (v ?? '')
    .split(' ')
    .filter((e) => e !== '')
    .map((e) => {
      const at = e.lastIndexOf('@');
      return { token: e.slice(0, at), ended: Number(e.slice(at + 1)) };
    });
}
