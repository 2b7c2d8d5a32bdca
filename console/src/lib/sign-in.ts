import type { ApiError } from './api.js';

/** What the sign-in form says when the service refuses a token or cannot be asked. */
export function signInMessage(e: ApiError): string {
  switch (e.problem.error) {
    case 'admin_unauthorized':
      return 'That token was refused. Check it and try again.';
    case 'admin_not_configured':
      return 'The admin API is switched off on this service: set ADMIN_TOKEN or ADMIN_TOKENS_FILE and restart it.';
    case 'rate_limited':
      return 'Too many attempts from this address. Wait a little, then try again.';
    case 'network_error':
      return 'The service did not answer. Is it running?';
    default:
      return `The service answered ${e.status}: ${e.problem.detail ?? e.problem.title}`;
  }
}
