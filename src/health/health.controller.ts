import { Controller, Get } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { HealthCheck, HealthCheckService, HealthIndicatorService } from '@nestjs/terminus';
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

  /** Every registered dependency answers (Redis when configured, search backend, inference upstream, breakers). */
  @Get('ready')
  @HealthCheck()
  ready() {
    return this.health.check(
      this.registry.all().map(({ name, check, optional }) => async () => {
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
    );
  }
}
