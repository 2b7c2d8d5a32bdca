import type { Clock } from '../../../common/clock.js';

/** What the store needs of RedisService (a narrow seam, so tests can pass the real service or a cluster one). */
export interface ScriptRunner {
  script<T = unknown>(
    name: string,
    keys: readonly string[],
    args: readonly (string | number)[],
  ): Promise<T>;
}

export interface RedisStoreOptions {
  /** `redis`: Redis TIME (falling back to the app clock where TIME is refused); `app`: the app clock. */
  clock: 'redis' | 'app';
  /** Redis Cluster: buckets of different hash-tag groups go to separate calls (reserve + refund). */
  cluster: boolean;
  /** The service's Clock (the app time sent with every call); default the system clock. */
  appClock?: Clock;
  /** Called once per refund call (metrics). */
  onRefund?: (keys: number) => void;
  /** Upper bound in ms of a multi-slot decision (several calls): the Redis command timeout. */
  deadlineMs?: number;
  /** false: every call takes the script's general path, even for GCRA-only buckets (tests run the table both ways). */
  fastPath?: boolean;
  /**
   * Fast-path decisions that arrive in one event-loop turn go to Redis together, in one `ratelimit_decide_batch`
   * call per hash slot (`auto`, the default; a lone decision keeps the one-request call); `always` sends even a
   * lone decision through the batch script (tests run the table that way); `off` never batches.
   */
  batch?: 'auto' | 'always' | 'off';
  /** Most decisions in one batch call (default 128). */
  maxBatch?: number;
}

/** Script arguments: strings and numbers. */
export type Argv = (string | number)[];
