import { Controller, Get, Req, ServiceUnavailableException } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import {
  HealthCheck,
  type HealthCheckResult,
  HealthCheckService,
  HealthIndicatorService,
} from '@nestjs/terminus';
import { type AnyRequest, header } from '../http/http-context.js';
import { HealthRegistry } from './health-registry.service.js';
import { notReady, publicReady } from './ready-views.js';

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
   * Publicly only the status and the reasons; every check's details with
   * the admin token or METRICS_TOKEN (ready-views.ts).
   */
  @Get('ready')
  @HealthCheck()
  async ready(@Req() req: AnyRequest) {
    const full = this.registry.mayReadDetail(header(req, 'authorization'));
    try {
      const result = await this.checkAll();
      return full ? result : publicReady(result);
    } catch (err) {
      if (!(err instanceof ServiceUnavailableException)) throw err;
      throw notReady(err.getResponse() as HealthCheckResult, full);
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
