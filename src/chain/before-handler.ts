/**
 * The handler runs unless a guard held a refusal for a later lock's answer (`state.overQuota`, the rate
 * limiter's `onLimit: stale`) and no lock answered: then that refusal is raised here, as the guard would
 * have raised it.
 */
export function beforeHandler(
  state: { overQuota?: Error } | undefined,
  handler: () => Promise<unknown>,
): Promise<unknown> {
  return state?.overQuota ? Promise.reject(state.overQuota) : handler();
}
