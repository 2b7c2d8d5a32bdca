import type { Clock } from '../../../common/clock.js';

/** What one worker knows of a bot's health (shown in /health/ready and the admin API). */
export interface BotHealthView {
  /** `up`, `out` (out of rotation after a streak of 5xx/timeouts), `probing` (a getMe in flight). */
  health: 'up' | 'out' | 'probing';
  consecutive_failures: number;
  last_success?: string;
  last_failure?: string;
  next_probe?: string;
}

interface Entry {
  streak: number;
  lastOk?: number;
  lastFail?: number;
  /** Out of rotation: when the next getMe probe may go. */
  probeAt?: number;
  probing: boolean;
  /** Probe backoff, doubled by each failed probe. */
  waitMs: number;
}

/**
 * A bot's failure streak, per worker process (one entry per configured bot:
 * bounded). After `after` consecutive 5xx or network failures the bot is out
 * of rotation — routing passes it over, so its chats go to another bot of the
 * scope or wait — and a single `getMe` probe (half-open) is sent every
 * `probeMs` (doubling to 16 ×); the probe's success, or any send's, puts it back.
 * A 429, 401, 403 or 400 is an answer, not ill health: it does not count.
 */
export class BotHealth {
  private readonly bots = new Map<string, Entry>();

  constructor(
    private readonly clock: Clock,
    private readonly after: number,
    private readonly probeMs: number,
  ) {}

  private entry(id: string): Entry {
    let e = this.bots.get(id);
    if (!e) this.bots.set(id, (e = { streak: 0, probing: false, waitMs: this.probeMs }));
    return e;
  }

  success(id: string): void {
    const e = this.entry(id);
    Object.assign(e, { streak: 0, lastOk: this.clock.now(), probeAt: undefined });
    e.waitMs = this.probeMs;
  }

  failure(id: string): void {
    const e = this.entry(id);
    e.streak++;
    e.lastFail = this.clock.now();
    if (e.streak >= this.after && e.probeAt === undefined) e.probeAt = e.lastFail + e.waitMs;
  }

  /**
   * True when the bot is in rotation. Out of it, starts the probe when it is due (`probe` resolves
   * true when the bot answered) and stays out until the probe succeeds.
   */
  usable(id: string, probe: () => Promise<boolean>): boolean {
    const e = this.bots.get(id);
    if (!e || e.probeAt === undefined) return true;
    if (!e.probing && this.clock.now() >= e.probeAt) {
      e.probing = true;
      void probe()
        .catch(() => false)
        .then((ok) => {
          e.probing = false;
          if (ok) return this.success(id);
          e.waitMs = Math.min(e.waitMs * 2, this.probeMs * 16);
          e.probeAt = this.clock.now() + e.waitMs;
          e.lastFail = this.clock.now();
        });
    }
    return false;
  }

  /** True while the bot is out of rotation (a send reserved before it went out must not leave). */
  out(id: string): boolean {
    return this.bots.get(id)?.probeAt !== undefined;
  }

  view(id: string): BotHealthView {
    const e = this.bots.get(id);
    const iso = (t?: number) => (t === undefined ? undefined : new Date(t).toISOString());
    if (!e) return { health: 'up', consecutive_failures: 0 };
    return {
      health: e.probeAt === undefined ? 'up' : e.probing ? 'probing' : 'out',
      consecutive_failures: e.streak,
      last_success: iso(e.lastOk),
      last_failure: iso(e.lastFail),
      next_probe: e.probing ? undefined : iso(e.probeAt),
    };
  }
}
