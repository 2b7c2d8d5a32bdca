import { Logger } from '@nestjs/common';
import { lookup } from 'node:dns/promises';
import type { Clock } from '../../../common/clock.js';
import { CALLBACK_SIGNATURE_HEADER, signCallback } from './callback-signature.js';
import { type CallbackSettings, privateAddress } from './callback.settings.js';

/** What an app is told when one of its jobs finished. */
export interface CompletionEvent {
  type: 'notification.delivered' | 'notification.dead';
  job_id: string;
  state: 'sent' | 'dead';
  bot?: string;
  message_id?: number;
  reason?: string;
  /** ISO time the job finished. */
  at: string;
}

/** Events waiting for a (re)try, at most; a new one past it is dropped and logged. */
export const MAX_PENDING = 10_000;

/**
 * POSTs signed completion events to each app's callback URL, with bounded
 * retries (exponential backoff) and a bounded backlog. At most once per
 * try, at least once while the process lives: the backlog is in memory, so
 * a restart loses events still waiting (the app can always poll the job).
 * A URL whose host resolves to a loopback or private address is refused
 * unless the host is in `allowHosts` (SSRF).
 */
export class CallbackDispatcher {
  private readonly log = new Logger('TelegramCallbacks');
  private pending = 0;
  private readonly timers = new Set<NodeJS.Timeout>();
  /** Counts for tests and the logs: delivered, failed for good, dropped (backlog full or refused). */
  readonly counts = { delivered: 0, failed: 0, dropped: 0 };

  constructor(
    private readonly s: CallbackSettings,
    private readonly clock: Clock,
  ) {}

  /** Queues an event of `app` when it has a callback; never throws. */
  emit(app: string | undefined, ev: CompletionEvent): void {
    const target = app === undefined ? undefined : this.s.apps[app];
    if (!target) return;
    if (this.pending >= MAX_PENDING) {
      this.counts.dropped++;
      this.log.warn(`callback backlog full: event of app ${app} dropped`);
      return;
    }
    this.pending++;
    void this.attempt(app!, JSON.stringify(ev), 1);
  }

  stop(): void {
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }

  private async attempt(app: string, body: string, n: number): Promise<void> {
    const { url, secret } = this.s.apps[app]!;
    const ok = await this.post(url, secret, body).catch(() => false);
    if (ok === true) {
      this.counts.delivered++;
      this.pending--;
      return;
    }
    if (ok === 'refused' || n >= this.s.maxAttempts) {
      this.counts[ok === 'refused' ? 'dropped' : 'failed']++;
      this.pending--;
      this.log.warn(`callback of app ${app} given up after ${n} tries (${new URL(url).host})`);
      return;
    }
    const wait = Math.min(60_000, this.s.backoffBaseMs * 2 ** (n - 1));
    const t = setTimeout(
      () => {
        this.timers.delete(t);
        void this.attempt(app, body, n + 1);
      },
      wait * (0.5 + this.clock.random() / 2),
    );
    t.unref();
    this.timers.add(t);
  }

  private async post(url: string, secret: string, body: string): Promise<boolean | 'refused'> {
    const host = new URL(url).hostname.replace(/^\[|\]$/g, '').toLowerCase();
    if (!this.s.allowHosts.includes(host)) {
      const addrs = await lookup(host, { all: true });
      if (addrs.some((a) => privateAddress(a.address))) return 'refused';
    }
    const res = await fetch(url, {
      method: 'POST',
      redirect: 'manual',
      signal: AbortSignal.timeout(this.s.timeoutMs),
      headers: {
        'content-type': 'application/json',
        [CALLBACK_SIGNATURE_HEADER]: signCallback(secret, body, this.clock.now()),
      },
      body,
    });
    await res.arrayBuffer().catch(() => undefined);
    return res.status >= 200 && res.status < 300;
  }
}
