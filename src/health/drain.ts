import type { INestApplication } from '@nestjs/common';
import type { ShutdownConfig } from '../config/config.types.js';
import { HealthRegistry } from './health-registry.service.js';

/** How a drain ended: every part closed in time, or the timeout struck first. */
export type DrainOutcome = 'closed' | 'timed-out';

/**
 * Graceful shutdown for a load-balanced instance: readiness goes to 503
 * first (requests are still served), then after `delayMs` — long enough
 * for balancers and Kubernetes to stop sending — the app closes (requests in
 * flight finish, Redis and backends close), bounded by `timeoutMs`.
 */
export async function drain(
  app: INestApplication,
  cfg: ShutdownConfig,
  onPhase: (phase: 'draining' | 'closing', detail: string) => void = () => undefined,
): Promise<DrainOutcome> {
  app.get(HealthRegistry).startDrain();
  onPhase('draining', `readiness is 503; closing in ${cfg.delayMs} ms`);
  await sleep(cfg.delayMs);
  onPhase('closing', `closing, at most ${cfg.timeoutMs} ms`);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<DrainOutcome>((resolve) => {
    timer = setTimeout(() => resolve('timed-out'), cfg.timeoutMs);
  });
  try {
    return await Promise.race([app.close().then(() => 'closed' as const), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/**
 * SIGTERM / SIGINT start a drain, then the process exits (0 when closed in
 * time, 1 when the timeout struck). A second signal exits at once.
 */
export function drainOnSignals(
  app: INestApplication,
  cfg: ShutdownConfig,
  log: { info(msg: string): void; warn(msg: string): void },
): void {
  let started = false;
  const onSignal = (signal: NodeJS.Signals): void => {
    if (started) {
      log.warn(`${signal} again during the drain: exiting now`);
      process.exit(1);
    }
    started = true;
    log.info(`${signal}: draining`);
    void drain(app, cfg, (_phase, detail) => log.info(`shutdown: ${detail}`)).then((outcome) => {
      if (outcome === 'timed-out') log.warn(`shutdown: not closed within ${cfg.timeoutMs} ms`);
      else log.info('shutdown: closed');
      process.exit(outcome === 'closed' ? 0 : 1);
    });
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}
