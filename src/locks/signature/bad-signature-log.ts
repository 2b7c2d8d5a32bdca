import { createHash } from 'node:crypto';
import type { Clock } from '../../common/clock.js';
import type { SignatureFailure } from './signature.problems.js';

/** Milliseconds between two `bad signature` lines of one app. */
export const BAD_SIGNATURE_LOG_INTERVAL_MS = 1_000;

/** Most apps tracked at once (bad_signature names a known app; past this all are forgotten). */
const MAX_APPS = 10_000;

/** Where the lines go (the lock's Nest logger). */
export interface WarnSink {
  warn(line: object): void;
}

interface AppWindow {
  lastAt: number;
  suppressed: number;
}

/**
 * The `bad signature` warning, bounded: at most one line per app per second, so that a flood
 * of forged requests cannot flood the log (or spend a SHA-256 per request). A line carries
 * `suppressed`, the lines of that app left out since its previous line; the metrics still
 * count every failure.
 */
export class BadSignatureLog {
  private readonly apps = new Map<string, AppWindow>();

  constructor(
    private readonly clock: Clock,
    private readonly sink: WarnSink,
    private readonly intervalMs = BAD_SIGNATURE_LOG_INTERVAL_MS,
  ) {}

  /** A `bad_signature` failure with its string to sign: logs it, or counts it as suppressed. */
  record(f: SignatureFailure, policy: string, reqId: string | undefined): void {
    if (f.stringToSign === undefined) return;
    const app = f.appId ?? '';
    const now = this.clock.now();
    let w = this.apps.get(app);
    if (w !== undefined && now - w.lastAt < this.intervalMs) {
      w.suppressed += 1;
      return;
    }
    const suppressed = w?.suppressed ?? 0;
    if (w === undefined) {
      if (this.apps.size >= MAX_APPS) this.apps.clear();
      this.apps.set(app, (w = { lastAt: now, suppressed: 0 }));
    } else {
      w.lastAt = now;
      w.suppressed = 0;
    }
    this.sink.warn({
      msg: 'bad signature',
      app: f.appId,
      scheme: f.scheme,
      policy,
      reqId,
      // Lets an operator compare with the client's string to sign; never the secret or the signature.
      stringToSignSha256: createHash('sha256').update(f.stringToSign).digest('hex'),
      suppressed,
    });
  }
}
