/** Metadata key under which `@Protect(policy)` stores the route's policy name. */
export const PROTECT_POLICY = 'rampart:protect-policy';

/** Metadata key of `@Protect(policy, { variantParam })`: the route parameter that picks `<policy>-<value>`. */
export const PROTECT_VARIANT = 'rampart:protect-variant';
