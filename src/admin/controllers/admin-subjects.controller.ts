import { Delete, Get, Param } from '@nestjs/common';
import { ApiOperation } from '@nestjs/swagger';
import type { SubjectRiskView } from '../../locks/rate-limit/rate-limit.admin.js';
import { AdminController } from '../admin-route.decorator.js';
import { AdminMetrics } from '../admin-metrics.js';
import { AuditRecorder } from '../audit/audit-recorder.service.js';
import { AdminActor } from '../auth/admin-actor.js';
import { InstalledParts } from '../installed-parts.service.js';

/**
 * Risk scores of subjects (docs/quotas.md#reading-a-subject): the admin gives
 * the id in clear (an app id, a user id, an IP address); the rate-limit lock
 * hashes it as its keys do. Answers and audit entries carry only the hash.
 */
@AdminController('subjects')
export class AdminSubjectsController {
  constructor(
    private readonly parts: InstalledParts,
    private readonly audit: AuditRecorder,
    private readonly metrics: AdminMetrics,
  ) {}

  @Get(':dimension/:id')
  @ApiOperation({
    summary:
      "A subject's risk: score, signals, band multiplier and the effective quota of every rule on its dimension",
  })
  read(@Param('dimension') dimension: string, @Param('id') id: string): Promise<SubjectRiskView> {
    return this.parts.requireRateLimit().subject(dimension, id);
  }

  @Get(':dimension/:scope/:id')
  @ApiOperation({
    summary:
      "A scoped subject's risk: a user of an app (`user/<app>/<id>`), a Telegram user or chat of a bot",
  })
  readScoped(
    @Param('dimension') dimension: string,
    @Param('scope') scope: string,
    @Param('id') id: string,
  ): Promise<SubjectRiskView> {
    return this.parts.requireRateLimit().subject(dimension, id, scope);
  }

  @Delete(':dimension/:id')
  @ApiOperation({ summary: "Resets a subject's score: its record is deleted (audited)" })
  reset(
    @AdminActor() actor: string,
    @Param('dimension') dimension: string,
    @Param('id') id: string,
  ): Promise<{ reset: boolean; subject: SubjectRiskView }> {
    return this.resetOne(actor, dimension, id, undefined);
  }

  @Delete(':dimension/:scope/:id')
  @ApiOperation({ summary: "Resets a scoped subject's score (audited)" })
  resetScoped(
    @AdminActor() actor: string,
    @Param('dimension') dimension: string,
    @Param('scope') scope: string,
    @Param('id') id: string,
  ): Promise<{ reset: boolean; subject: SubjectRiskView }> {
    return this.resetOne(actor, dimension, id, scope);
  }

  private async resetOne(
    actor: string,
    dimension: string,
    id: string,
    scope: string | undefined,
  ): Promise<{ reset: boolean; subject: SubjectRiskView }> {
    const port = this.parts.requireRateLimit();
    const before = await port.subject(dimension, id, scope);
    const reset = await port.resetSubject(dimension, id, scope);
    this.metrics.changes.inc({ action: 'subject.reset', result: 'applied' });
    const of = scope === undefined ? '' : ` of ${scope}`;
    await this.audit.record({
      at: new Date().toISOString(),
      actor,
      action: 'subject.reset',
      target: `subject:${before.dimension}:${before.subject}`,
      summary: `risk score of ${before.dimension} ${before.subject}${of} reset (was ${before.score}, ×${before.multiplier})`,
      changes: [{ path: 'score', from: before.score, to: 0 }],
    });
    return { reset, subject: await port.subject(dimension, id, scope) };
  }
}
