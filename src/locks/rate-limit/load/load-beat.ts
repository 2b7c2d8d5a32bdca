import type { Clock } from '../../../common/clock.js';
import type {
  HeartbeatRead,
  HeartbeatReader,
  HeartbeatRiders,
} from '../../../redis/heartbeat-riders.js';
import type { LoadSettings, LoadState } from '../core/load.types.js';
import type { StoreLanes } from '../store/lanes/store-lanes.js';
import type { GlobalBucket, LoadStore } from '../store/load/load-store.js';

/**
 * The shared load level carried by the instance heartbeat (Redis lane only): the heartbeat
 * reads it with its own call and hands it to `brought`. Plain class: the LoadMonitor makes one.
 *
 * With Redis, the instance heartbeat (every `rateLimit.heartbeat`, a call the
 * instance makes anyway) also computes the shared level and hands it to
 * the LoadMonitor. While those readings arrive, a slow instance asks Redis
 * nothing of its own for the level: its requests are decided with the last
 * beat's (at most one beat old). A busy one (BUSY_READS reads since the last
 * refresh) polls on its tick as before: at most one call per 20 requests, the
 * level as current as `pollMs` under load. A beat that fails brings back the
 * polls above once the last reading is three beats old (an instance is live for three).
 */
export class LoadBeat implements HeartbeatReader {
  /** When a heartbeat last brought the shared level (epoch ms; 0 = never). */
  private beatAt = 0;
  private unride: (() => void) | undefined;

  constructor(
    private readonly riders: HeartbeatRiders,
    private readonly lanes: StoreLanes,
    private readonly store: LoadStore,
    private readonly settings: { readonly load: LoadSettings },
    private readonly clock: Clock,
    private readonly globals: () => GlobalBucket[],
    private readonly brought: (shared: Omit<LoadState, 'at'>) => void,
  ) {}

  /** Rides the heartbeat when the store can be read that way. */
  start(): void {
    if (!this.store.request) return;
    this.unride = this.riders.setReader(this);
    // The start's poll stands until the first beat brings the level (no poll for the first request).
    this.beatAt = this.clock.now();
  }

  stop(): void {
    this.unride?.();
  }

  /** Heartbeats bring the shared level (the last one younger than three beats, jitter and a slow beat aside). */
  riding(): boolean {
    const beat = this.riders.periodMs;
    return beat !== undefined && this.clock.now() - this.beatAt < 3 * beat;
  }

  /** The level's computation for the heartbeat to carry (Redis lane only). */
  read(): HeartbeatRead | undefined {
    if (!this.lanes.current()?.remote || !this.store.request) return undefined;
    const req = this.store.request(`rl:${this.lanes.tag}:load`, this.globals(), this.settings.load);
    return {
      keys: req.keys,
      args: req.args,
      answered: (reply) => {
        if (reply instanceof Error) return; // polls take over once the last reading is stale
        let shared: Omit<LoadState, 'at'>;
        try {
          shared = req.parse(reply);
        } catch {
          return;
        }
        this.beatAt = this.clock.now();
        this.brought(shared);
      },
    };
  }
}
