import { Get, HttpCode, Post } from '@nestjs/common';
import { ApiBody, ApiOperation } from '@nestjs/swagger';
import type {
  BloomAdminPort,
  BloomFilterStatus,
} from '../../locks/cache-shield/cache-shield.admin.js';
import { AdminBody, AdminController } from '../admin-route.decorator.js';
import { AdminMetrics } from '../admin-metrics.js';
import { diffValues } from '../audit/audit-diff.js';
import { AuditRecorder } from '../audit/audit-recorder.service.js';
import { AdminActor } from '../auth/admin-actor.js';
import { BloomRebuildDto, BloomRollbackDto } from '../dto/bloom.dto.js';
import { InstalledParts } from '../installed-parts.service.js';

/** Bloom filters of the cache shield, through its BloomAdminPort (404 `lock_not_installed` without it). */
@AdminController('bloom')
export class AdminBloomController {
  constructor(
    private readonly parts: InstalledParts,
    private readonly audit: AuditRecorder,
    private readonly metrics: AdminMetrics,
  ) {}

  @Get()
  @ApiOperation({
    summary:
      'Every filter: active build (version, items, target and measured FP rate, source, time) and the previous one',
  })
  async status(): Promise<{ filters: BloomFilterStatus[] }> {
    return { filters: await this.parts.requireBloom().status() };
  }

  @Post('rebuild')
  @HttpCode(200)
  @ApiOperation({
    summary:
      'Builds, validates and atomically activates a new build (one filter, or all); the old one is kept for rollback',
  })
  @ApiBody({ type: BloomRebuildDto, required: false })
  rebuild(
    @AdminActor() actor: string,
    @AdminBody() body: BloomRebuildDto,
  ): Promise<{ filters: BloomFilterStatus[] }> {
    return this.audited(actor, 'bloom.rebuild', body.filter, (port) => port.rebuild(body.filter));
  }

  @Post('rollback')
  @HttpCode(200)
  @ApiOperation({ summary: 'Activates an earlier build again (the previous one by default)' })
  @ApiBody({ type: BloomRollbackDto, required: false })
  rollback(
    @AdminActor() actor: string,
    @AdminBody() body: BloomRollbackDto,
  ): Promise<{ filters: BloomFilterStatus[] }> {
    return this.audited(actor, 'bloom.rollback', body.filter, (port) =>
      port.rollback(body.filter, body.version),
    );
  }

  /** Runs a rebuild or rollback and audits which active build versions changed. */
  private async audited(
    actor: string,
    action: string,
    filter: string | undefined,
    run: (port: BloomAdminPort) => Promise<BloomFilterStatus[]>,
  ): Promise<{ filters: BloomFilterStatus[] }> {
    const port = this.parts.requireBloom();
    const before = await port.status();
    const filters = await run(port);
    this.metrics.changes.inc({ action, result: 'applied' });
    const versions = (list: BloomFilterStatus[]) =>
      Object.fromEntries(list.map((f) => [f.name, f.active?.version ?? null]));
    await this.audit.record({
      at: new Date().toISOString(),
      actor,
      action,
      target: `bloom:${filter ?? '*'}`,
      summary: `${action.replace('bloom.', '')} ${filter ?? 'every filter'}`,
      changes: diffValues(versions(before), versions(filters), 'bloom'),
    });
    return { filters };
  }
}
