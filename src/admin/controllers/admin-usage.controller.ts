import { Get, Inject, Query } from '@nestjs/common';
import { ApiOperation, ApiResponse } from '@nestjs/swagger';
import { CLOCK, type Clock } from '../../common/clock.js';
import type { UsageRow } from '../../locks/rate-limit/rate-limit.admin.js';
import { AdminController } from '../admin-route.decorator.js';
import { InstalledParts } from '../installed-parts.service.js';
import { usageQuery } from '../usage/usage-query.js';

/** What `GET /admin/usage` answers: the query as read, the rows, and their totals. */
export interface UsageAnswer {
  period: 'hour' | 'day';
  from: string;
  to: string;
  app: string | null;
  /** The user's keyed hash (as Redis keys and logs carry it), never the id. */
  user: string | null;
  model: string | null;
  rows: UsageRow[];
  totals: Omit<UsageRow, 'start' | 'app' | 'model'>;
  truncated: boolean;
}

/**
 * Token usage and spend per period (docs/admin-api.md#usage), as the rate-limit lock recorded it when answers'
 * token reservations were settled. Admins only: an app's API key never reaches this controller.
 */
@AdminController('usage')
export class AdminUsageController {
  constructor(
    private readonly parts: InstalledParts,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  @Get()
  @ApiOperation({
    summary:
      'Tokens and spend per hour or day, per app and model (optionally one user of one app, one model)',
  })
  @ApiResponse({ status: 400, description: 'invalid_usage_query: every problem listed' })
  async read(@Query() raw: Record<string, unknown>): Promise<UsageAnswer> {
    const q = usageQuery(raw ?? {}, this.clock.now(), () =>
      (this.parts.appRegistry()?.list() ?? []).map((a) => a.id),
    );
    const { user, rows, truncated } = await this.parts.requireUsage().usage(q);
    const totals = { promptTokens: 0, completionTokens: 0, spendMicros: 0 };
    for (const r of rows) {
      totals.promptTokens += r.promptTokens;
      totals.completionTokens += r.completionTokens;
      totals.spendMicros += r.spendMicros;
    }
    return {
      period: q.period,
      from: new Date(q.fromMs).toISOString(),
      to: new Date(q.toMs).toISOString(),
      app: q.apps.length === 1 && raw.app !== undefined ? q.apps[0]! : null,
      user,
      model: q.model ?? null,
      rows,
      totals,
      truncated,
    };
  }
}
