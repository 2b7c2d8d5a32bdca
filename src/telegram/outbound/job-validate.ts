import { type NewJob, PRIORITIES, type Priority } from './outbound.types.js';

/** Bot API methods a notification job may call (each takes a `chat_id`). */
export const SEND_METHODS = [
  'sendMessage',
  'sendPhoto',
  'sendVideo',
  'sendAnimation',
  'sendAudio',
  'sendDocument',
  'sendVoice',
  'sendSticker',
  'sendMediaGroup',
  'sendLocation',
  'sendContact',
  'sendPoll',
  'sendDice',
  'sendChatAction',
  'copyMessage',
  'forwardMessage',
  'editMessageText',
  'editMessageCaption',
  'editMessageMedia',
  'editMessageReplyMarkup',
  'deleteMessage',
  'pinChatMessage',
  'unpinChatMessage',
] as const;

/** Most jobs in one request. */
export const MAX_BATCH = 100;
const MAX_PAYLOAD = 16_384;
const JOB_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const CHAT_ID = /^-?\d{1,20}$/;
const COLLAPSE = /^[A-Za-z0-9._:-]{1,64}$/;
const FIELDS = [
  'job_id',
  'chat_id',
  'method',
  'payload',
  'bot_scope',
  'priority',
  'deadline',
  'not_before',
  'collapse_key',
];

/** The jobs of a request body: `{jobs: [...]}`, a list, or one job. */
export function jobsOf(body: unknown): unknown[] | undefined {
  if (Array.isArray(body)) return body;
  if (typeof body !== 'object' || body === null) return undefined;
  const jobs = (body as { jobs?: unknown }).jobs;
  return jobs === undefined ? [body] : Array.isArray(jobs) ? jobs : undefined;
}

/** An instant: epoch milliseconds or an ISO 8601 string. */
function instant(v: unknown): number | undefined {
  if (typeof v === 'number') return Number.isSafeInteger(v) && v > 0 ? v : undefined;
  if (typeof v !== 'string' || !/^\d{4}-\d{2}-\d{2}T/.test(v)) return undefined;
  const t = Date.parse(v);
  return Number.isNaN(t) ? undefined : t;
}

/**
 * Validates a request's jobs. Every problem is listed, with its path
 * (`jobs[2].chat_id: …`); any problem means none of the batch is queued.
 */
export function validateJobs(
  body: unknown,
  o: { scopes: ReadonlySet<string>; now: number; defaultDeadlineMs: number; maxDeadlineMs: number },
): { jobs: NewJob[]; problems: string[] } {
  const raw = jobsOf(body);
  const p: string[] = [];
  if (!raw) return { jobs: [], problems: ['body: a job, a list of jobs, or {"jobs": [...]}'] };
  if (raw.length === 0) p.push('jobs: at least one job');
  if (raw.length > MAX_BATCH) p.push(`jobs: at most ${MAX_BATCH} jobs in one request`);
  const jobs: NewJob[] = [];
  const seen = new Set<string>();
  raw.slice(0, MAX_BATCH).forEach((j, i) => {
    const at = `jobs[${i}]`;
    if (typeof j !== 'object' || j === null || Array.isArray(j))
      return p.push(`${at}: must be an object`);
    const o2 = j as Record<string, unknown>;
    const before = p.length;
    for (const k of Object.keys(o2))
      if (!FIELDS.includes(k)) p.push(`${at}.${k}: not a known field`);
    const id = o2.job_id;
    if (typeof id !== 'string' || !JOB_ID.test(id))
      p.push(`${at}.job_id: 1–128 of A-Z a-z 0-9 . _ : -`);
    else if (seen.has(id)) p.push(`${at}.job_id: "${id}" appears twice in the batch`);
    else seen.add(id);
    const chat = typeof o2.chat_id === 'number' ? String(o2.chat_id) : o2.chat_id;
    if (typeof chat !== 'string' || !CHAT_ID.test(chat) || !Number.isSafeInteger(Number(chat)))
      p.push(`${at}.chat_id: a numeric chat id (no @username: one chat, one key)`);
    if (!(SEND_METHODS as readonly unknown[]).includes(o2.method))
      p.push(`${at}.method: one of ${SEND_METHODS.join(', ')}`);
    const payload = o2.payload ?? {};
    if (typeof payload !== 'object' || payload === null || Array.isArray(payload))
      p.push(`${at}.payload: an object of Bot API parameters`);
    else if ('chat_id' in payload)
      p.push(`${at}.payload.chat_id: give chat_id on the job, not in payload`);
    else if (JSON.stringify(payload).length > MAX_PAYLOAD)
      p.push(`${at}.payload: at most ${MAX_PAYLOAD} bytes`);
    if (typeof o2.bot_scope !== 'string' || !o.scopes.has(o2.bot_scope))
      p.push(
        `${at}.bot_scope: one of the configured scopes (${[...o.scopes].join(', ') || 'none'})`,
      );
    const priority = o2.priority ?? 'normal';
    if (!(PRIORITIES as readonly unknown[]).includes(priority))
      p.push(`${at}.priority: high, normal or low`);
    const deadline = o2.deadline === undefined ? o.now + o.defaultDeadlineMs : instant(o2.deadline);
    if (deadline === undefined) p.push(`${at}.deadline: epoch milliseconds or an ISO 8601 time`);
    else if (deadline <= o.now) p.push(`${at}.deadline: already passed`);
    else if (deadline > o.now + o.maxDeadlineMs)
      p.push(`${at}.deadline: further away than the retention`);
    const nb = o2.not_before === undefined ? o.now : instant(o2.not_before);
    if (nb === undefined) p.push(`${at}.not_before: epoch milliseconds or an ISO 8601 time`);
    else if (deadline !== undefined && nb >= deadline)
      p.push(`${at}.not_before: must come before the deadline`);
    const ck = o2.collapse_key;
    if (ck !== undefined && (typeof ck !== 'string' || !COLLAPSE.test(ck)))
      p.push(`${at}.collapse_key: 1–64 of A-Z a-z 0-9 . _ : -`);
    if (p.length > before) return;
    jobs.push({
      id: id as string,
      chatId: chat as string,
      method: o2.method as string,
      payload: payload as Record<string, unknown>,
      scope: o2.bot_scope as string,
      priority: priority as Priority,
      deadline: deadline!,
      notBefore: Math.max(o.now, nb!),
      collapseKey: ck as string | undefined,
    });
  });
  return { jobs, problems: p };
}
