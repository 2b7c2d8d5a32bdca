import { Body, Controller, Delete, Get, HttpCode, Param, Post, Req } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiBadRequestResponse,
  ApiConflictResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiServiceUnavailableResponse,
  ApiTags,
} from '@nestjs/swagger';
import { Protect } from '../../chain/protect.decorator.js';
import { ProblemException } from '../../common/problem.exception.js';
import { type AnyRequest, requestState } from '../../http/http-context.js';
import type { JobView } from './job-view.js';
import { OutboundService } from './outbound.service.js';

const PROBLEM = { description: 'application/problem+json with a stable `error` code' };

/**
 * Outbound Telegram notifications: signed (lock 1) and rate limited per app
 * by the number of jobs (lock 2), policy `notifications`. Jobs are the signed app's own
 * (job-namespace.ts). See docs/telegram-outbound.md.
 */
@ApiTags('notifications')
@Controller('v1/notifications')
export class NotificationsController {
  constructor(private readonly outbound: OutboundService) {}

  @Post()
  @HttpCode(202)
  @Protect('notifications')
  @ApiOperation({
    summary:
      'Queues notification jobs (one, a list, or {jobs: [...]}, at most 100): all or none; a known job_id is a duplicate',
  })
  @ApiAcceptedResponse({ description: '{jobs: [{job_id, status: queued | replaced | duplicate}]}' })
  @ApiBadRequestResponse({
    ...PROBLEM,
    description: 'invalid_notifications, with `problems` naming each',
  })
  @ApiServiceUnavailableResponse({
    ...PROBLEM,
    description: 'notifications_unavailable (Redis down)',
  })
  submit(
    @Body() body: unknown,
    @Req() req: AnyRequest,
  ): Promise<{ jobs: { job_id: string; status: string }[] }> {
    return this.outbound.submit(body, requestState(req).appId);
  }

  @Get(':jobId')
  @Protect('notifications')
  @ApiOperation({
    summary:
      'A job: state (queued, waiting, sending, sent, dead, collapsed), attempts, message_id, reason',
  })
  @ApiNotFoundResponse({
    ...PROBLEM,
    description: 'unknown_job (never queued, or past its retention)',
  })
  async status(@Param('jobId') id: string, @Req() req: AnyRequest): Promise<JobView> {
    // Only the asking app's own jobs: another app's id is as unknown as one never queued.
    const view = await this.outbound.status(id.slice(0, 200), requestState(req).appId);
    if (!view)
      throw new ProblemException(404, 'unknown_job', 'No such job', {
        detail: 'never queued here, or finished longer ago than the retention',
      });
    return view;
  }

  @Delete(':jobId')
  @HttpCode(200)
  @Protect('notifications')
  @ApiOperation({
    summary: 'Cancels a queued job (not one being sent): {job_id, status: cancelled}',
  })
  @ApiOkResponse({ description: '{job_id, status: cancelled}' })
  @ApiConflictResponse({
    ...PROBLEM,
    description: 'job_not_cancellable: being sent, or already sent, dead, collapsed or cancelled',
  })
  @ApiNotFoundResponse({ ...PROBLEM, description: "unknown_job (also another app's job)" })
  async cancel(
    @Param('jobId') id: string,
    @Req() req: AnyRequest,
  ): Promise<{ job_id: string; status: string }> {
    const out = await this.outbound.cancel(id.slice(0, 200), requestState(req).appId);
    if (!out)
      throw new ProblemException(404, 'unknown_job', 'No such job', {
        detail: 'never queued here, or finished longer ago than the retention',
      });
    return out;
  }
}
