import { Delete, Get, Param, Post, Query } from '@nestjs/common';
import { ApiBody, ApiCreatedResponse, ApiOperation } from '@nestjs/swagger';
import { BAN_DIMENSIONS, MAX_BANS } from '../../locks/rate-limit/bans/ban.types.js';
import { AdminBody, AdminController } from '../admin-route.decorator.js';
import { AdminActor } from '../auth/admin-actor.js';
import { invalidBan } from '../bans/ban-input.js';
import { BansAdmin, type BanView } from '../bans/bans-admin.service.js';

/**
 * Bans (docs/admin-api.md#bans): deny a user, chat, IP or app entry until a
 * time. Ids are given in clear and never returned: a ban shows its subject as
 * the rate-limit lock's key part. Every change is audited.
 */
@AdminController('bans')
export class AdminBansController {
  constructor(private readonly bans: BansAdmin) {}

  @Get()
  @ApiOperation({ summary: 'The bans in force, soonest to lapse first (filter by app, dimension)' })
  async list(
    @Query('app') app?: unknown,
    @Query('dimension') dimension?: unknown,
  ): Promise<{ bans: BanView[]; max: number }> {
    const problems: string[] = [];
    if (app !== undefined && typeof app !== 'string') problems.push('app: give it once');
    if (dimension !== undefined && !BAN_DIMENSIONS.some((d) => d === dimension))
      problems.push(`dimension: must be one of ${BAN_DIMENSIONS.join(', ')}`);
    if (problems.length > 0) throw invalidBan(problems);
    const bans = await this.bans.list({
      ...(typeof app === 'string' ? { app } : {}),
      ...(typeof dimension === 'string' ? { dimension } : {}),
    });
    return { bans, max: MAX_BANS };
  }

  @Post()
  @ApiOperation({
    summary:
      'Bans a subject until a time: {dimension, subject, app | global: true, until | ttlSeconds, reason?} (audited)',
  })
  @ApiBody({
    schema: {
      type: 'object',
      required: ['dimension', 'subject'],
      properties: {
        dimension: { enum: [...BAN_DIMENSIONS] },
        subject: {
          type: 'string',
          description: 'user or chat id, IP address, or app id (in clear)',
        },
        app: { type: 'string', description: 'the app (a Telegram bot) the subject belongs to' },
        global: { type: 'boolean', description: 'a user, chat or IP ban for every app' },
        until: { type: 'string', format: 'date-time' },
        ttlSeconds: { type: 'integer', minimum: 1 },
        reason: { type: 'string', maxLength: 200 },
      },
    },
  })
  @ApiCreatedResponse({ description: 'The ban (400 invalid_ban, 409 too_many_bans)' })
  add(@AdminActor() actor: string, @AdminBody() body: unknown): Promise<BanView> {
    return this.bans.add(actor, body);
  }

  @Delete(':id')
  @ApiOperation({ summary: 'Lifts a ban (404 ban_not_found; audited)' })
  async lift(@AdminActor() actor: string, @Param('id') id: string): Promise<{ lifted: BanView }> {
    return { lifted: await this.bans.lift(actor, id) };
  }
}
