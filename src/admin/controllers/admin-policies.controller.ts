import { Get, HttpCode, Inject, Param, ParseIntPipe, Post, Query } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { LockChain } from '../../chain/lock-chain.service.js';
import { ProblemException } from '../../common/problem.exception.js';
import { AdminBody, AdminController } from '../admin-route.decorator.js';
import { ADMIN_SETTINGS, AdminSettings } from '../admin-settings.js';
import { AdminActor } from '../auth/admin-actor.js';
import { VersionsQueryDto } from '../dto/page-query.dto.js';
import { RollbackDto } from '../dto/rollback.dto.js';
import { PolicyChanges } from '../policies/policy-changes.service.js';
import {
  POLICY_STORE,
  PolicyStore,
  PolicyVersion,
  PolicyVersionMeta,
} from '../policies/policy-store.js';
import { PolicySetView, policySetView } from '../policies/policy-view.js';

/** Reading the policy set and its history; rolling back. */
@AdminController('policies')
export class AdminPoliciesController {
  constructor(
    private readonly chain: LockChain,
    private readonly changes: PolicyChanges,
    @Inject(POLICY_STORE) private readonly store: PolicyStore,
    @Inject(ADMIN_SETTINGS) private readonly settings: AdminSettings,
  ) {}

  @Get()
  @ApiOperation({
    summary:
      'The policy set in force on this instance, its version, and the effective mode of every lock',
  })
  current(): PolicySetView {
    return policySetView(this.chain.current());
  }

  @Get('versions')
  @ApiOperation({ summary: 'Stored versions, newest first (number, time, actor, summary)' })
  async versions(
    @Query() q: VersionsQueryDto,
  ): Promise<{ active: number; historyLimit: number; versions: PolicyVersionMeta[] }> {
    const [active, versions] = await Promise.all([
      this.store.activeVersion(),
      this.store.list(q.limit ?? this.settings.historyLimit),
    ]);
    return { active, historyLimit: this.settings.historyLimit, versions };
  }

  @Get('versions/:version')
  @ApiOperation({ summary: 'The full content of one stored version' })
  async version(@Param('version', ParseIntPipe) n: number): Promise<PolicyVersion> {
    return (await this.store.get(n)) ?? throwVersionNotFound(n);
  }

  @Post('rollback')
  @HttpCode(200)
  @ApiOperation({
    summary:
      'Makes the content of an earlier version active again, as a new version (history is never rewritten)',
  })
  @ApiBody({ type: RollbackDto })
  @ApiOkResponse({
    description:
      '`version` is the new version; `changed` is false when that content was already active',
  })
  async rollback(
    @AdminActor() actor: string,
    @AdminBody() body: RollbackDto,
  ): Promise<{ version: number; changed: boolean; policySet: PolicySetView }> {
    const target = (await this.store.get(body.version)) ?? throwVersionNotFound(body.version);
    const res = await this.changes.apply({
      actor,
      action: 'policy.rollback',
      target: `version:${body.version}`,
      summary: `rollback to version ${body.version}`,
      edit: () => structuredClone(target.policies),
    });
    return { ...res, policySet: policySetView(this.chain.current()) };
  }
}

function throwVersionNotFound(n: number): never {
  throw new ProblemException(404, 'version_not_found', 'No such policy version', {
    detail: `Version ${n} does not exist or left the history`,
  });
}
