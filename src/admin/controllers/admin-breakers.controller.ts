import { Delete, Get, HttpCode, Param, Post, Put } from '@nestjs/common';
import { ApiBody, ApiOperation } from '@nestjs/swagger';
import { LockChain } from '../../chain/lock-chain.service.js';
import { lockNotInstalled } from '../admin-problems.js';
import type { BreakerStatus } from '../../locks/circuit-breaker/circuit-breaker.admin.js';
import { AdminBody, AdminController } from '../admin-route.decorator.js';
import { AdminActor } from '../auth/admin-actor.js';
import { BreakerForceDto } from '../dto/breaker.dto.js';
import { futureInstant } from '../dto/iso-time.js';
import { InstalledParts } from '../installed-parts.service.js';
import {
  PolicyChange,
  PolicyChangeResult,
  PolicyChanges,
} from '../policies/policy-changes.service.js';
import { forceBreaker, resetBreaker } from '../policies/policy-edits.js';
import { PolicySetView, policySetView } from '../policies/policy-view.js';
import type { LatencySummary } from '../status/latency-window.js';
import { StatusSeries } from '../status/status-series.service.js';

type ChangeAnswer = PolicyChangeResult & { policySet: PolicySetView };

/**
 * Circuit breakers: status through the BreakerAdminPort; force open, force
 * closed and reset are policy changes of the policy's `circuitBreaker` slice
 * (see BreakerSliceControls), versioned and applied on every instance.
 */
@AdminController('breakers')
export class AdminBreakersController {
  constructor(
    private readonly parts: InstalledParts,
    private readonly chain: LockChain,
    private readonly changes: PolicyChanges,
    private readonly series: StatusSeries,
  ) {}

  @Get()
  @ApiOperation({
    summary:
      'Every breaker: state, forced state, policies, rolling counters, and call latency over about the last minute (this instance)',
  })
  async status(): Promise<{ breakers: (BreakerStatus & { latency: LatencySummary | null })[] }> {
    const latency = this.series.breakerLatency();
    const breakers = await this.parts.requireBreaker().status();
    return { breakers: breakers.map((b) => ({ ...b, latency: latency[b.name] ?? null })) };
  }

  @Put(':policy/force')
  @ApiOperation({
    summary: 'Forces the breaker of a policy open (kill switch) or closed, optionally until a time',
  })
  @ApiBody({ type: BreakerForceDto })
  force(
    @AdminActor() actor: string,
    @Param('policy') policy: string,
    @AdminBody() body: BreakerForceDto,
  ): Promise<ChangeAnswer> {
    const until = body.until === undefined ? undefined : futureInstant(body.until, 'until');
    const summary = `${policy}: breaker forced ${body.state}${until ? ` until ${new Date(until).toISOString()}` : ''}`;
    return this.policyChange({
      actor,
      action: 'breaker.force',
      target: `${policy}/circuitBreaker`,
      summary,
      edit: (p) => forceBreaker(p, policy, body.state, until),
    });
  }

  @Delete(':policy/force')
  @ApiOperation({ summary: 'Removes a force: the breaker decides by itself again' })
  unforce(@AdminActor() actor: string, @Param('policy') policy: string): Promise<ChangeAnswer> {
    return this.policyChange({
      actor,
      action: 'breaker.unforce',
      target: `${policy}/circuitBreaker`,
      summary: `${policy}: breaker force removed`,
      edit: (p) => forceBreaker(p, policy, undefined),
    });
  }

  @Post(':policy/reset')
  @HttpCode(200)
  @ApiOperation({ summary: 'Closes the breaker and clears its window once (removes any force)' })
  reset(@AdminActor() actor: string, @Param('policy') policy: string): Promise<ChangeAnswer> {
    const now = Date.now();
    return this.policyChange({
      actor,
      action: 'breaker.reset',
      target: `${policy}/circuitBreaker`,
      summary: `${policy}: breaker reset`,
      edit: (p) => resetBreaker(p, policy, now),
    });
  }

  private async policyChange(change: PolicyChange): Promise<ChangeAnswer> {
    if (!this.chain.lock('circuitBreaker')) throw lockNotInstalled('circuitBreaker');
    const res = await this.changes.apply(change);
    return { ...res, policySet: policySetView(this.chain.current()) };
  }
}
