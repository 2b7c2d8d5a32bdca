/** Shapes of the admin API answers the console reads (see docs/admin-api.md). */

export type LockMode = 'enforce' | 'shadow' | 'off';
export type Outcome = 'allowed' | 'rejected' | 'shadow_rejected' | 'short_circuited' | 'skipped';
export type OutcomeCounts = Record<Outcome, number>;

export interface LockSlice {
  mode: LockMode;
  /** Time-boxed override: `until` in epoch milliseconds. */
  override?: { mode: LockMode; until?: number };
  [option: string]: unknown;
}

export interface RoutePolicy {
  description?: string;
  critical?: boolean;
  locks: Record<string, LockSlice>;
}

export interface PolicySetView {
  version: number;
  updatedAt: string;
  policies: Record<string, RoutePolicy>;
  effective: Record<string, Record<string, LockMode>>;
}

export interface ConfigView {
  config: { env?: string; service?: string; httpAdapter?: string } & Record<string, unknown>;
  installedLocks: string[];
  store: string;
  policySet: PolicySetView;
}

export interface ChangeAnswer {
  version: number;
  changed: boolean;
  policySet: PolicySetView;
}

export interface RedisFigures {
  usedMemoryBytes: number;
  maxMemoryBytes: number;
  keys: number;
  rateLimitKeys: number;
  estimated: boolean;
  sampledAt: string;
}

export interface StatusView {
  aggregated: boolean;
  partial: boolean;
  policyVersion: number;
  instances: { id: string; at: string; self: boolean; policyVersion?: number }[];
  byLock: Record<string, Record<string, OutcomeCounts>>;
  byPolicy: { policy: string; routes: string[]; locks: Record<string, OutcomeCounts> }[];
  redis?: RedisFigures | null;
  /** Not reported by this version of the service; shown when a later one does. */
  load?: { level: string | number; detail?: string } | null;
}

export interface SeriesPoint {
  at: number;
  seconds: number;
  byPolicy: Record<string, Record<string, Partial<OutcomeCounts>>>;
}

export interface SeriesView {
  stepMs: number;
  windowMs: number;
  now: number;
  points: SeriesPoint[];
}

export interface BloomBuildInfo {
  version: number;
  items: number;
  targetFp: number;
  measuredFp: number | null;
  source: string;
  builtAt: string;
  fillRatio?: number;
  liveFp?: number | null;
  addedKeys?: number;
  stale?: boolean;
  bytes?: number;
}

export interface BloomFilterStatus {
  name: string;
  active: BloomBuildInfo | null;
  previous: BloomBuildInfo | null;
  building: boolean;
}

export interface LatencySummary {
  windowSeconds: number;
  calls: number;
  p50Ms: number | null;
  p95Ms: number | null;
  p99Ms: number | null;
}

export interface BreakerStatus {
  name: string;
  state: 'closed' | 'open' | 'half_open';
  phase?: string;
  forced?: 'open' | 'closed';
  policies: string[];
  since?: string;
  stats: Record<string, number>;
  latency?: LatencySummary | null;
  /** Why the circuit last opened, while it is not closed. */
  reason?: 'errors' | 'slow_calls' | 'probe_failed';
  /** The adaptive concurrency limit, when the backend opted in (RTTs in ms). */
  adaptive?: {
    limit: number;
    minLimit: number;
    maxLimit: number;
    minRttMs?: number;
    sampleRttMs?: number;
  };
}

export interface ClientAppView {
  id: string;
  tier: string;
  active: boolean;
  skewSeconds?: number;
  debug: boolean;
  secrets: { id: string; notAfter?: string; expired: boolean }[];
}

export interface OneTimeSecret {
  id: string;
  value: string;
}

export interface PolicyVersionMeta {
  version: number;
  at: string;
  actor: string;
  summary: string;
}

export interface PolicyVersion extends PolicyVersionMeta {
  policies: Record<string, RoutePolicy>;
}

export interface AuditEntry {
  id: string;
  at: string;
  actor: string;
  action: string;
  target: string;
  summary: string;
  version?: number;
  changes: { path: string; from?: unknown; to?: unknown }[];
}

/** An RFC 9457 problem as the service writes it. */
export interface Problem {
  status: number;
  error: string;
  title: string;
  detail?: string;
  problems?: string[];
  request_id?: string;
}
