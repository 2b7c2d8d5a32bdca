import { Get, Query } from '@nestjs/common';
import { ApiOperation } from '@nestjs/swagger';
import { AdminController } from '../admin-route.decorator.js';
import { SeriesQueryDto } from '../dto/page-query.dto.js';
import { AdminStatus, StatusView } from '../status/admin-status.service.js';
import { SeriesView, StatusSeries } from '../status/status-series.service.js';

@AdminController('status')
export class AdminStatusController {
  constructor(
    private readonly status: AdminStatus,
    private readonly series: StatusSeries,
  ) {}

  @Get()
  @ApiOperation({
    summary:
      'Per lock and per route counters (allowed, rejected, shadow_rejected, short_circuited, skipped), summed over every live instance',
    description:
      'Each instance writes its counters to Redis every statsIntervalMs while they change (unchanged: with its heartbeat); instances silent for three periods (the longer of statsIntervalMs and the heartbeat) drop out. Without Redis: this instance only. Also each instance’s policy version and the sampled Redis figures.',
  })
  read(): Promise<StatusView> {
    return this.status.status();
  }

  @Get('series')
  @ApiOperation({
    summary:
      'Lock outcomes per policy and lock, one point every seriesStepMs over the last 15 minutes (counts per step, summed over the live instances)',
    description:
      'Pass `since` = the `at` of the last point you have to get only newer points. The series lives in the memory of the instance that answers, and is sampled only while someone reads it (a read within the last 15 minutes): it starts empty, with the instance and after 15 minutes without a reader.',
  })
  readSeries(@Query() q: SeriesQueryDto): Promise<SeriesView> {
    return this.series.view(q.since);
  }
}
