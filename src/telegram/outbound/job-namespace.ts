/**
 * Notification jobs are namespaced by the app that queued them: the queue stores `<app>/<job_id>` (and
 * `<app>/<collapse_key>`), so one app can neither read, pre-claim nor collapse another's jobs. A client's own
 * ids never contain `/` (job-validate.ts), so the first `/` ends the app. Unsigned requests (a policy without
 * the signature lock) share the namespace `-`; internal jobs (builtin replies) have none.
 */
export const NO_APP = '-';

/** The stored id of a client's job id (or collapse key) queued by `app`. */
export function ownId(app: string | undefined, id: string): string {
  return `${app ?? NO_APP}/${id}`;
}

/** The app of a stored id, or undefined (an internal job). */
export function appOfJob(stored: string): string | undefined {
  const i = stored.indexOf('/');
  return i < 0 ? undefined : stored.slice(0, i);
}

/** The id a client gave for a stored id (an internal id as it is). */
export function clientJobId(stored: string): string {
  const i = stored.indexOf('/');
  return i < 0 ? stored : stored.slice(i + 1);
}
