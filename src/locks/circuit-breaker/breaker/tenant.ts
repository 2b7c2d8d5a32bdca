/** Who makes a call, for the bulkhead's fair share: the app (or one id for every unsigned caller) and its tier. */
export interface Tenant {
  id: string;
  tier?: string;
}

/** Every unsigned caller, as one tenant. */
export const ANONYMOUS: Tenant = { id: '-' };
