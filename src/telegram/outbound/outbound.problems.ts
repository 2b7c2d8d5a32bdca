import { ProblemException } from '../../common/problem.exception.js';
import type { Job } from './outbound.types.js';

/** 503: the queue could not take or read jobs (Redis unreachable, the memory queue full). */
export function unavailable(
  detail = 'Redis is unreachable; nothing was queued. Try again.',
): ProblemException {
  return new ProblemException(
    503,
    'notifications_unavailable',
    'The notification queue is unavailable',
    {
      detail,
      headers: { 'Retry-After': '1' },
    },
  );
}

/** 400: the posted jobs had problems (every one listed); nothing was queued. */
export function invalidNotifications(problems: string[]): ProblemException {
  return new ProblemException(400, 'invalid_notifications', 'Invalid notification jobs', {
    detail: `${problems.length} problem(s); nothing was queued`,
    problems,
  });
}

/** 409: the job is being sent, or has finished (`state`: what it is, when known). */
export function notCancellable(detail: string, state: Job['state'] | undefined): ProblemException {
  return new ProblemException(409, 'job_not_cancellable', 'The job cannot be cancelled', {
    detail,
    state,
  });
}
