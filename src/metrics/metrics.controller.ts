import { Controller, Get, Header, UseGuards } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { MetricsTokenGuard } from './metrics-token.guard.js';
import { MetricsService } from './metrics.service.js';

@ApiExcludeController()
@Controller('metrics')
@UseGuards(MetricsTokenGuard)
export class MetricsController {
  constructor(private readonly metrics: MetricsService) {}

  @Get()
  @Header('content-type', 'text/plain; version=0.0.4; charset=utf-8')
  @Header('cache-control', 'no-store')
  scrape(): Promise<string> {
    return this.metrics.registry.metrics();
  }
}
