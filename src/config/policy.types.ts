/**
 * Route policies: which locks apply to a route and with which options.
 *
 * The chain only understands the common part of a slice (`mode`); every lock
 * owns, validates and documents the rest of its own slice.
 */

/** What a lock does on a route: enforce its verdicts, only record them, or not run at all. */
export type LockMode = 'enforce' | 'shadow' | 'off';

export const LOCK_MODES: readonly LockMode[] = ['enforce', 'shadow', 'off'];

/** The slice of a route policy that belongs to one lock. */
export interface LockSlice {
  mode: LockMode;
  /** Epoch milliseconds after which a time-boxed override of `mode` reverts (set by the admin API). */
  [option: string]: unknown;
}

/** One named route policy, e.g. `search`: one slice per lock. */
export interface RoutePolicy {
  /** Free text for operators. */
  description?: string;
  /** Critical routes (admin, health, Telegram webhooks) are exempt from global load shedding. */
  critical?: boolean;
  locks: Record<string, LockSlice>;
}

/** The whole set of route policies, versioned so a change can be traced and rolled back. */
export interface PolicySet {
  /** Monotonic version number; 1 is the set loaded at boot. */
  version: number;
  /** ISO time of the change that produced this version. */
  updatedAt: string;
  policies: Record<string, RoutePolicy>;
}
