/** Metadata key under which `@Protect(policy)` stores the route's policy name. */
export const PROTECT_POLICY = 'rampart:protect-policy';
