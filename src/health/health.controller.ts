import { Controller, Get, ServiceUnavailableException } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import {
  HealthCheck,
  type HealthCheckResult,
  HealthCheckService,
  HealthIndicatorService,
} from '@nestjs/terminus';
import { ProblemException } from '../common/problem.exception.js';
import { HealthRegistry } from './health-registry.service.js';

const CHECK_TIMEOUT_MS = 1_000;

@ApiTags('health')
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly indicators: HealthIndicatorService,
    private readonly registry: HealthRegistry,
  ) {}

  /** The process is up and its event loop answers. */
  @Get('live')
  @HealthCheck()
  live() {
    return this.health.check([
      () => this.indicators.check('process').up({ uptimeSeconds: Math.round(process.uptime()) }),
    ]);
  }

  /**
   * 200 only when every enforcing lock can enforce (`armed`) and every
   * required dependency answers (Redis when configured, search backend…);
   * 503 while draining for shutdown. Optional checks only mark it degraded.
   */
  @Get('ready')
  @HealthCheck()
  async ready() {
    try {
      return await this.checkAll();
    } catch (err) {
      if (!(err instanceof ServiceUnavailableException)) throw err;
      throw notReady(err.getResponse() as HealthCheckResult);
    }
  }

  private checkAll() {
    return this.health.check([
      () => this.armedIndicator(),
      ...this.registry.all().map(({ name, check, optional }) => async () => {
        const session = this.indicators.check(name);
        try {
          const ctl = new AbortController();
          const timer = setTimeout(() => ctl.abort(), CHECK_TIMEOUT_MS);
          try {
            const details = await Promise.race([
              check(ctl.signal),
              new Promise<never>((_, reject) =>
                ctl.signal.addEventListener('abort', () =>
                  reject(new Error(`timed out after ${CHECK_TIMEOUT_MS} ms`)),
                ),
              ),
            ]);
            return session.up(details ?? {});
          } finally {
            clearTimeout(timer);
          }
        } catch (err) {
          const message = (err as Error).message;
          return optional ? session.degraded({ message }) : session.down({ message });
        }
      }),
    ]);
  }

  /** `armed`: down while draining or while any part is not armed, listing what is pending. */
  private armedIndicator() {
    const session = this.indicators.check('armed');
    if (this.registry.draining)
      return session.down({ message: 'draining: the instance is shutting down', pending: [] });
    const { pending, byChoice } = this.registry.armed();
    if (pending.length > 0)
      return session.down({ message: `not armed yet: ${pending.join('; ')}`, pending });
    return byChoice.length > 0
      ? session.up({ message: 'serving unarmed by choice', servingUnarmedByChoice: byChoice })
      : session.up({ pending: [] });
  }
}

/**
 * The 503 of `/health/ready` as problem+json `not_ready`: `detail` says why
 * (draining, or what is not armed), `pending` lists what is not armed yet,
 * `down` holds the failed checks and `details` every check (no secrets).
 */
function notReady(result: HealthCheckResult): ProblemException {
  const armed = result.error?.armed as { message?: string; pending?: string[] } | undefined;
  const down = Object.entries(result.error ?? {}).map(
    ([name, v]) => `${name}: ${(v as { message?: string }).message ?? 'down'}`,
  );
  return new ProblemException(503, 'not_ready', 'Not ready', {
    detail: armed?.message ?? down.join('; '),
    pending: armed?.pending ?? [],
    info: result.info ?? {},
    down: result.error ?? {},
    details: result.details,
  });
}
