/** A ban as `GET /admin/bans` lists it: the subject as its hash, never the id in clear. */
export interface BanView {
  id: string;
  dimension: 'user' | 'chat' | 'ip' | 'app';
  subject: string;
  app: string | null;
  until: string;
  reason: string | null;
  createdAt: string;
  actor: string;
}

/** What the "New ban" form holds. `app` empty with `global` = every app; `hours` a number as typed. */
export interface BanForm {
  dimension: BanView['dimension'];
  subject: string;
  app: string;
  global: boolean;
  hours: string;
  reason: string;
}

export const EMPTY_BAN_FORM: BanForm = {
  dimension: 'user',
  subject: '',
  app: '',
  global: false,
  hours: '24',
  reason: '',
};

/**
 * The body of `POST /admin/bans` for a form: an app ban names no app; any other names its app or
 * says `global: true`. The server checks everything (400 `invalid_ban` lists the problems).
 */
export function banBody(f: BanForm): Record<string, unknown> {
  const hours = Number(f.hours);
  const body: Record<string, unknown> = {
    dimension: f.dimension,
    subject: f.subject.trim(),
    ttlSeconds: Number.isFinite(hours) ? Math.round(hours * 3600) : f.hours,
  };
  if (f.dimension !== 'app') {
    if (f.global) body.global = true;
    else body.app = f.app.trim();
  }
  if (f.reason.trim() !== '') body.reason = f.reason.trim();
  return body;
}

/** Who a ban applies to, for the table. */
export function banScope(b: BanView): string {
  if (b.dimension === 'app') return b.subject;
  return b.app === null ? 'every app' : b.app;
}
