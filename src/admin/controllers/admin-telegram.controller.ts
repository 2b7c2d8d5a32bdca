import { Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { ApiBody, ApiOperation } from '@nestjs/swagger';
import { PROBLEM_CODES } from '../../common/problem-codes.js';
import { ProblemException } from '../../common/problem.exception.js';
import {
  BotView,
  OutboundAdmin,
  OutboundAdminError,
} from '../../telegram/outbound/outbound-admin.service.js';
import type { JobView } from '../../telegram/outbound/job-view.js';
import type { QueueView } from '../../telegram/outbound/outbound-queues.js';
import { invalidChange } from '../admin-problems.js';
import { AdminBody, AdminController } from '../admin-route.decorator.js';
import { AdminActor } from '../auth/admin-actor.js';
import { AuditRecorder } from '../audit/audit-recorder.service.js';
import { futureInstant } from '../dto/iso-time.js';
import { BotStateDto, ReplayDto, RotateDto } from '../dto/telegram-outbound.dto.js';

const STATUS = {
  unknown_bot: 404,
  token_unreadable: 422,
  rotation_timeout: 409,
} as const satisfies Partial<typeof PROBLEM_CODES>;

async function mapped<T>(p: Promise<T>): Promise<T> {
  try {
    return await p;
  } catch (e) {
    if (e instanceof OutboundAdminError)
      throw new ProblemException(STATUS[e.code], e.code, 'Telegram bot change refused', {
        detail: e.message,
      });
    throw e;
  }
}

/**
 * The outbound sender: the bot registry (states shared by every worker,
 * token rotation) and the dead letters (list, replay). Changes are audited.
 */
@AdminController('telegram')
export class AdminTelegramController {
  constructor(
    private readonly outbound: OutboundAdmin,
    private readonly audit: AuditRecorder,
  ) {}

  @Get('bots')
  @ApiOperation({
    summary:
      'Every bot: scope, token fingerprint, state (active, cooldown, disabled, revoked), sends in flight',
  })
  async bots(): Promise<{ bots: BotView[] }> {
    return { bots: await this.outbound.list() };
  }

  @Get('queues')
  @ApiOperation({
    summary:
      "Every queue (a scope, or a bot's pinned jobs): jobs, chats waiting and lag of the oldest; counts only, no chat",
  })
  async queues(): Promise<{ truncated: boolean; queues: QueueView[] }> {
    return this.outbound.queues();
  }

  @Put('bots/:id/state')
  @ApiOperation({
    summary:
      'Sets a bot state; disabled and revoked bots give up their chats to other bots of the scope',
  })
  @ApiBody({ type: BotStateDto })
  async state(
    @AdminActor() actor: string,
    @Param('id') id: string,
    @AdminBody() body: BotStateDto,
  ): Promise<BotView> {
    const until = body.until === undefined ? undefined : futureInstant(body.until, 'until');
    if (body.state === 'cooldown' && until === undefined)
      throw invalidChange(['until: required for state cooldown']);
    const view = await mapped(this.outbound.setState(id, body.state, until, body.reason));
    await this.audit.record({
      at: new Date().toISOString(),
      actor,
      action: 'telegram.bot_state',
      target: `bot:${id}`,
      summary: `bot ${id}: ${body.state}${body.until ? ` until ${body.until}` : ''}`,
      changes: [],
    });
    return view;
  }

  @Post('bots/:id/rotate')
  @HttpCode(200)
  @ApiOperation({
    summary:
      "Rotates a bot's token: stop assigning, drain in-flight sends, read the token again, resume",
  })
  @ApiBody({ type: RotateDto })
  async rotate(
    @AdminActor() actor: string,
    @Param('id') id: string,
    @AdminBody() body: RotateDto,
  ): Promise<BotView & { previous: string }> {
    const view = await mapped(this.outbound.rotate(id, body.drainMs ?? 15_000));
    await this.audit.record({
      at: new Date().toISOString(),
      actor,
      action: 'telegram.rotate_token',
      target: `bot:${id}`,
      summary: `bot ${id}: token ${view.previous} → ${view.token}`,
      changes: [],
    });
    return view;
  }

  @Get('dead')
  @ApiOperation({ summary: 'Dead-lettered jobs, newest first, with their reason' })
  async dead(@Query('limit') limit?: string): Promise<{ jobs: JobView[] }> {
    const n = Math.min(1000, Math.max(1, Number.parseInt(limit ?? '100', 10) || 100));
    return { jobs: await this.outbound.dead(n) };
  }

  @Post('dead/replay')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Queues dead jobs again at the end of their chat lanes (attempts reset, new deadline)',
  })
  @ApiBody({ type: ReplayDto })
  async replay(
    @AdminActor() actor: string,
    @AdminBody() body: ReplayDto,
  ): Promise<{ replayed: string[] }> {
    const replayed = await this.outbound.replay(body.job_ids);
    await this.audit.record({
      at: new Date().toISOString(),
      actor,
      action: 'telegram.replay',
      target: 'telegram:dead',
      summary: `${replayed.length} of ${body.job_ids.length} dead job(s) replayed`,
      changes: [],
    });
    return { replayed };
  }
}
