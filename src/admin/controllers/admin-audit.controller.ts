import { Get, Inject, Query } from '@nestjs/common';
import { ApiOperation } from '@nestjs/swagger';
import { AdminController } from '../admin-route.decorator.js';
import { AUDIT_LOG, AuditLog, AuditPage } from '../audit/audit-log.js';
import { AuditQueryDto } from '../dto/page-query.dto.js';

@AdminController('audit')
export class AdminAuditController {
  constructor(@Inject(AUDIT_LOG) private readonly log: AuditLog) {}

  @Get()
  @ApiOperation({
    summary:
      'Admin changes, newest first: who (token id), when, what (a diff without secret values). Page with `next` → `before`.',
  })
  page(@Query() q: AuditQueryDto): Promise<AuditPage> {
    return this.log.page(q.limit ?? 50, q.before);
  }
}
