import { Get } from '@nestjs/common';
import { ApiOperation } from '@nestjs/swagger';
import { AdminController } from '../admin-route.decorator.js';
import { AdminStatus, StatusView } from '../status/admin-status.service.js';

@AdminController('status')
export class AdminStatusController {
  constructor(private readonly status: AdminStatus) {}

  @Get()
  @ApiOperation({
    summary:
      'Per lock and per route counters (allowed, rejected, shadow_rejected, short_circuited, skipped), summed over every live instance',
    description:
      'Each instance writes its counters to Redis every statsIntervalMs; instances silent for three intervals drop out. Without Redis: this instance only.',
  })
  read(): Promise<StatusView> {
    return this.status.status();
  }
}
