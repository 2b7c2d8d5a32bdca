import { Delete, Param, Patch, Put } from '@nestjs/common';
import { ApiBody, ApiOperation } from '@nestjs/swagger';
import { LockChain } from '../../chain/lock-chain.service.js';
import type { RoutePolicy } from '../../config/policy.types.js';
import { AdminBody, AdminController } from '../admin-route.decorator.js';
import { AdminActor } from '../auth/admin-actor.js';
import { futureInstant } from '../dto/iso-time.js';
import { LockModeDto } from '../dto/lock-mode.dto.js';
import { LockOptionsDto } from '../dto/lock-options.dto.js';
import { PolicyDto } from '../dto/policy.dto.js';
import { PolicyChangeResult, PolicyChanges } from '../policies/policy-changes.service.js';
import {
  clearOverride,
  deletePolicy,
  mergeLockOptions,
  putPolicy,
  setLockMode,
} from '../policies/policy-edits.js';
import { PolicySetView, policySetView } from '../policies/policy-view.js';

type ChangeAnswer = PolicyChangeResult & { policySet: PolicySetView };

/** Per route policy: lock modes (with time-boxed overrides), lock options, whole policies. */
@AdminController('policies')
export class AdminPolicyEditController {
  constructor(
    private readonly chain: LockChain,
    private readonly changes: PolicyChanges,
  ) {}

  @Patch(':policy/locks/:lock')
  @ApiOperation({
    summary:
      'Enable, disable or shadow one lock on one policy — permanently, or until a time (then it reverts by itself)',
  })
  @ApiBody({ type: LockModeDto })
  async mode(
    @AdminActor() actor: string,
    @Param('policy') policy: string,
    @Param('lock') lock: string,
    @AdminBody() body: LockModeDto,
  ): Promise<ChangeAnswer> {
    const until = body.until === undefined ? undefined : futureInstant(body.until, 'until');
    const summary = `${policy}.${lock} → ${body.mode}${body.until ? ` until ${new Date(until!).toISOString()}` : ''}`;
    return this.answer(
      this.changes.apply({
        actor,
        action: 'policy.lock_mode',
        target: `${policy}/${lock}`,
        summary,
        edit: (p) => setLockMode(p, policy, lock, body.mode, until),
      }),
    );
  }

  @Delete(':policy/locks/:lock/override')
  @ApiOperation({ summary: 'Ends a time-boxed override now (the permanent mode applies again)' })
  async endOverride(
    @AdminActor() actor: string,
    @Param('policy') policy: string,
    @Param('lock') lock: string,
  ): Promise<ChangeAnswer> {
    const summary = `${policy}.${lock}: override ended`;
    return this.answer(
      this.changes.apply({
        actor,
        action: 'policy.end_override',
        target: `${policy}/${lock}`,
        summary,
        edit: (p) => clearOverride(p, policy, lock),
      }),
    );
  }

  @Patch(':policy/locks/:lock/options')
  @ApiOperation({
    summary:
      'Edits a lock’s options on one policy (rules, costs, tiers, failMode, shield and breaker options) as a JSON Merge Patch',
  })
  @ApiBody({ type: LockOptionsDto })
  async options(
    @AdminActor() actor: string,
    @Param('policy') policy: string,
    @Param('lock') lock: string,
    @AdminBody() body: LockOptionsDto,
  ): Promise<ChangeAnswer> {
    const summary = `${policy}.${lock}: options ${Object.keys(body.options).join(', ') || '(none)'}`;
    return this.answer(
      this.changes.apply({
        actor,
        action: 'policy.lock_options',
        target: `${policy}/${lock}`,
        summary,
        edit: (p) => mergeLockOptions(p, policy, lock, body.options),
      }),
    );
  }

  @Put(':policy')
  @ApiOperation({ summary: 'Creates or replaces a whole route policy' })
  @ApiBody({ type: PolicyDto })
  async put(
    @AdminActor() actor: string,
    @Param('policy') policy: string,
    @AdminBody() body: PolicyDto,
  ): Promise<ChangeAnswer> {
    const value: RoutePolicy = { locks: body.locks };
    if (body.description !== undefined) value.description = body.description;
    if (body.critical !== undefined) value.critical = body.critical;
    return this.answer(
      this.changes.apply({
        actor,
        action: 'policy.put',
        target: policy,
        summary: `${policy}: replaced`,
        edit: (p) => putPolicy(p, policy, value),
      }),
    );
  }

  @Delete(':policy')
  @ApiOperation({ summary: 'Removes a route policy (refused while a route uses it)' })
  async remove(
    @AdminActor() actor: string,
    @Param('policy') policy: string,
  ): Promise<ChangeAnswer> {
    return this.answer(
      this.changes.apply({
        actor,
        action: 'policy.delete',
        target: policy,
        summary: `${policy}: removed`,
        edit: (p) => deletePolicy(p, policy),
      }),
    );
  }

  private async answer(result: Promise<PolicyChangeResult>): Promise<ChangeAnswer> {
    return { ...(await result), policySet: policySetView(this.chain.current()) };
  }
}
